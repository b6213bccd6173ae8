#include "backends/s3/s3_factory.h"

#include "backends/s3/s3_backend.h"

#include <cstdio>

namespace strata::s3 {

BackendDescription S3Factory::describe() const
{
    return {"S3 object storage",
            {"s3://BUCKET/KEY"},
            "S3 and compatible object stores. Credentials come from AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, ~/.aws/credentials or a saved connection, never from the URI.",
            {{"endpoint", "URL", "The server (default AWS, or AWS_ENDPOINT_URL_S3)."},
             {"region", "REGION", "The bucket's region (default AWS_REGION, AWS_DEFAULT_REGION or us-east-1)."},
             {"style", "path|virtual", "How the bucket is named in requests (default virtual on AWS, path elsewhere)."},
             {"profile", "NAME", "The profile of ~/.aws/credentials and ~/.aws/config to use."},
             {"anonymous", "", "Send no credentials (a public bucket)."},
             insecureOption(),
             timeoutOption(),
             {"versionId", "ID", "That version of the object."}}};
}

Result<Target> S3Factory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    Target target{config->baseUri().toString(), uri.path(), {}};
    if (!config->versionId.empty()) { // one version of an object: the bucket's connection secret
        config->versionId.clear();
        target.secretKey = config->baseUri().toString();
    }
    return target;
}

Result<std::shared_ptr<Backend>> S3Factory::create(const Uri &uri, const Target &target)
{
    return create(uri, target, ConnectionSecret{});
}

Result<std::shared_ptr<Backend>> S3Factory::create(const Uri &uri, const Target &, const ConnectionSecret &secret)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    // Keys a connection profile gives win over the environment and ~/.aws.
    auto credentials = secret.user.empty() ? loadCredentials(*config)
                                           : Result<Credentials>(Credentials{secret.user, secret.secret, secret.token});
    if (!credentials)
        return std::move(credentials).error();
    http::ClientOptions options;
    options.insecure = config->insecure;
    options.stallTimeout = std::chrono::seconds(config->timeoutSeconds);
    options.connectTimeout = std::chrono::seconds(std::min(config->timeoutSeconds, 10));
    if (config->insecure)
        std::fprintf(
            stderr,
            "strata: warning: TLS certificates of %s are NOT verified (?insecure=1); anyone on the path can read "
            "and change the data\n",
            config->endpointHost.c_str());
    auto client = std::make_shared<http::Client>(options);
    return std::shared_ptr<Backend>(
        std::make_shared<S3Backend>(std::move(*config), std::move(*credentials), std::move(client)));
}

} // namespace strata::s3
