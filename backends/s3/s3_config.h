#pragma once

#include "backends/s3/sigv4.h"
#include "core/storage/uri.h"

#include <cstdint>
#include <string>

namespace strata::s3 {

// Where a bucket is and how to talk to it, from an s3:// URI and the environment.
struct Config {
    std::string bucket;
    std::string region = "us-east-1";
    std::string scheme = "https"; // of the endpoint
    std::string endpointHost;     // "127.0.0.1:4569" ("host[:port]", port only when not default)
    bool pathStyle = true;        // /bucket/key rather than bucket.host/key
    bool insecure = false;        // TLS verification off (asked for with ?insecure=1)
    bool anonymous = false;       // unsigned requests (asked for with ?anonymous=1)
    std::string profile;          // AWS profile used for credentials, if any
    int timeoutSeconds = 30;      // a request that moves no byte for this long fails (?timeout=)
    // ?versionId=: every object of this instance is read (stat, read, remove) as that one
    // version of it; nothing can be written through it.
    std::string versionId;

    // "s3://bucket?endpoint=…&region=…" without any secret: the URI people see.
    Uri baseUri() const;
    std::string host() const { return pathStyle ? endpointHost : bucket + "." + endpointHost; }
};

// Reads the URI's options (endpoint, region, style, profile, anonymous, insecure).
Result<Config> parseConfig(const Uri &uri);

// Credentials, in order: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN;
// the profile (?profile=, else AWS_PROFILE, else "default") in ~/.aws/credentials and
// ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE override the paths);
// none when the config asks for anonymous access. Missing credentials are an error that
// says where they were looked for; the error never holds a secret.
Result<Credentials> loadCredentials(const Config &config);

} // namespace strata::s3
