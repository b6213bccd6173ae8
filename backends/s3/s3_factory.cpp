#include "backends/s3/s3_factory.h"

#include "backends/s3/s3_backend.h"

#include <algorithm>
#include <cctype>

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
             {"versionId", "ID", "That version of the object."}},
            {{"bucket", "&Bucket:", FormField::Kind::Text, "my-bucket", {}},
             {"prefix", "&Prefix:", FormField::Kind::Text, "optional, e.g. backups/2026", {}},
             {"endpoint", "&Endpoint:", FormField::Kind::Text, "http://127.0.0.1:9000 (empty: AWS)", {}},
             {"region", "&Region:", FormField::Kind::Text, "us-east-1", {}},
             {"profile", "Pro&file:", FormField::Kind::Text, "optional, from ~/.aws/credentials", {}},
             {"accessKey", "&Access key:", FormField::Kind::Text, "empty: environment or ~/.aws", {}, true},
             {"secretKey", "&Secret key:", FormField::Kind::Secret, {}, {}},
             form::timeoutField("s3Timeout"),
             {"anonymous", "Public bucket (no credentials)", FormField::Kind::Flag, {}, {}}}};
}

Result<FormConnection> S3Factory::fromForm(const FormAnswers &answers) const
{
    const auto all = [](const std::string &s, auto ok) { return !s.empty() && std::all_of(s.begin(), s.end(), ok); };
    const auto lowerOrDigit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    const std::string bucket = form::answer(answers, "bucket");
    if (bucket.size() < 3 || bucket.size() > 63 || !lowerOrDigit(bucket.front()) || !lowerOrDigit(bucket.back())
        || !all(bucket, [&](char c) { return lowerOrDigit(c) || c == '.' || c == '-'; }))
        return Error(ErrorKind::InvalidInput, "A bucket name has 3 to 63 lower-case letters, digits, '.' or '-'");
    std::string prefix = form::answer(answers, "prefix");
    prefix.erase(0, prefix.find_first_not_of('/') == std::string::npos ? prefix.size() : prefix.find_first_not_of('/'));
    Uri uri;
    uri.setScheme("s3");
    uri.setHost(bucket);
    uri.setPath('/' + prefix); // as typed: '%' and '#' are part of it
    std::vector<Uri::QueryItem> query;
    if (const std::string endpoint = form::answer(answers, "endpoint"); !endpoint.empty()) {
        if (auto url = form::httpUrl(endpoint, "The endpoint"); !url)
            return std::move(url).error();
        query.emplace_back("endpoint", endpoint);
    }
    if (const std::string region = form::answer(answers, "region"); !region.empty()) {
        if (!all(region, [&](char c) { return lowerOrDigit(c) || c == '-'; }))
            return Error(ErrorKind::InvalidInput, "A region looks like us-east-1");
        query.emplace_back("region", region);
    }
    if (const std::string profile = form::answer(answers, "profile"); !profile.empty()) {
        if (!all(profile, [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
            }))
            return Error(ErrorKind::InvalidInput, "A profile name uses letters, digits, '.', '_' and '-'");
        query.emplace_back("profile", profile);
    }
    if (auto st = form::timeout(answers, "s3Timeout", query); !st)
        return std::move(st).error();
    FormConnection connection;
    if (!form::answer(answers, "anonymous").empty()) {
        query.emplace_back("anonymous", "1");
    } else {
        connection.user = form::answer(answers, "accessKey");
        connection.secret = form::answer(answers, "secretKey");
        if (connection.user.empty() != connection.secret.empty())
            return Error(ErrorKind::InvalidInput,
                         "Give both the access key and the secret key, or neither (then the "
                         "environment or ~/.aws is used)");
    }
    uri.setQuery(std::move(query));
    connection.uri = std::move(uri);
    return connection;
}

FormAnswers S3Factory::toForm(const Uri &uri) const
{
    return {{"bucket", uri.host()},
            {"prefix", uri.path().empty() ? std::string() : uri.path().substr(1)},
            {"endpoint", uri.queryValue("endpoint").value_or("")},
            {"region", uri.queryValue("region").value_or("")},
            {"profile", uri.queryValue("profile").value_or("")},
            {"s3Timeout", uri.queryValue("timeout").value_or("")},
            {"anonymous", uri.queryValue("anonymous") ? "1" : ""}};
}

Target S3Factory::target(const Config &config, const Uri &uri) const
{
    Target target{config.baseUri().toString(), uri.path(), {}};
    if (!config.versionId.empty()) { // one version of an object: the bucket's connection secret
        Config bucket = config;
        bucket.versionId.clear();
        target.secretKey = bucket.baseUri().toString();
    }
    return target;
}

Result<std::shared_ptr<Backend>> S3Factory::open(Config config, const Uri &, const ConnectionSecret &secret)
{
    auto credentials = secret.user.empty() ? loadCredentials(config)
                                           : Result<Credentials>(Credentials{secret.user, secret.secret, secret.token});
    if (!credentials)
        return std::move(credentials).error();
    if (config.insecure)
        warnUnverifiedTls(config.endpointHost);
    auto client = std::make_shared<http::Client>(http::ClientOptions::forUri(config.insecure, config.timeoutSeconds));
    return std::shared_ptr<Backend>(
        std::make_shared<S3Backend>(std::move(config), std::move(*credentials), std::move(client)));
}

} // namespace strata::s3
