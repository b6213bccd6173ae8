#include "backends/s3/s3_config.h"

#include "backends/http/uri_options.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include <pwd.h>
#include <unistd.h>

namespace strata::s3 {

namespace {

std::string env(const char *name)
{
    return http::environment(name);
}

using IniSection = std::map<std::string, std::string>;

std::string trimmed(std::string_view text)
{
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && blank(text.back()))
        text.remove_suffix(1);
    return std::string(text);
}

// A small INI reader for the AWS files: [section], key = value, # and ; comments.
std::map<std::string, IniSection> readIni(const std::string &path)
{
    std::map<std::string, IniSection> out;
    std::ifstream file(path);
    std::string section, raw;
    while (file && std::getline(file, raw)) {
        const std::string line = trimmed(raw);
        if (line.empty() || line[0] == '#' || line[0] == ';')
            continue;
        if (line.front() == '[' && line.back() == ']') {
            section = trimmed(std::string_view(line).substr(1, line.size() - 2));
            continue;
        }
        auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        out[section][trimmed(std::string_view(line).substr(0, eq))] = trimmed(std::string_view(line).substr(eq + 1));
    }
    return out;
}

// $HOME, else the account's home folder.
std::string homeDir()
{
    if (std::string home = env("HOME"); !home.empty())
        return home;
    const passwd *pw = ::getpwuid(::getuid());
    return pw && pw->pw_dir ? pw->pw_dir : "/";
}

std::string homeFile(const char *override, const char *relative)
{
    const std::string path = env(override);
    return path.empty() ? homeDir() + relative : path;
}

} // namespace

Uri Config::baseUri() const
{
    Uri uri;
    uri.setScheme("s3");
    uri.setHost(bucket);
    uri.setPath("/");
    std::vector<Uri::QueryItem> query;
    query.emplace_back("endpoint", scheme + "://" + endpointHost);
    query.emplace_back("region", region);
    if (!pathStyle)
        query.emplace_back("style", "virtual");
    if (!profile.empty())
        query.emplace_back("profile", profile);
    if (anonymous)
        query.emplace_back("anonymous", "1");
    if (insecure)
        query.emplace_back("insecure", "1");
    if (timeoutSeconds != 30)
        query.emplace_back("timeout", std::to_string(timeoutSeconds));
    if (!versionId.empty())
        query.emplace_back("versionId", versionId);
    uri.setQuery(std::move(query));
    return uri;
}

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    config.bucket = uri.host();
    if (config.bucket.empty())
        return Error(ErrorKind::InvalidInput, "name the bucket, as in s3://bucket/key?endpoint=http://127.0.0.1:4569");
    if (uri.hasUserInfo())
        return Error(ErrorKind::InvalidInput,
                     "credentials never go in an s3:// URI; set AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY, or ?profile=NAME");
    if (uri.port())
        return Error(ErrorKind::InvalidInput, "an s3:// URI names a bucket; give the server with ?endpoint=");
    if (auto version = uri.queryValue("versionId")) {
        if (version->empty() || version->find_first_of("&#/ ") != std::string::npos)
            return Error(ErrorKind::InvalidInput,
                         "?versionId= takes a version id, as strata stat --versions lists them");
        config.versionId = *version;
    }
    if (auto region = uri.queryValue("region"); region && !region->empty())
        config.region = *region;
    else if (auto r = env("AWS_REGION"); !r.empty())
        config.region = r;
    else if (auto d = env("AWS_DEFAULT_REGION"); !d.empty())
        config.region = d;
    config.profile = uri.queryValue("profile").value_or(env("AWS_PROFILE"));
    config.anonymous = http::truthy(uri.queryValue("anonymous"));
    config.insecure = http::truthy(uri.queryValue("insecure"));
    auto timeout = http::timeoutOption(uri, config.timeoutSeconds);
    if (!timeout)
        return std::move(timeout).error();
    config.timeoutSeconds = *timeout;

    std::string endpoint = uri.queryValue("endpoint").value_or(env("AWS_ENDPOINT_URL_S3"));
    if (endpoint.empty())
        endpoint = env("AWS_ENDPOINT_URL");
    const bool custom = !endpoint.empty();
    if (!custom)
        endpoint = "https://s3." + config.region + ".amazonaws.com";
    auto parsed = Uri::parse(endpoint);
    if (parsed && parsed->hasUserInfo())
        return Error(ErrorKind::InvalidInput,
                     "credentials never go in the endpoint; set AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY, or ?profile=NAME");
    if (!parsed || (parsed->scheme() != "http" && parsed->scheme() != "https") || parsed->host().empty())
        return Error(ErrorKind::InvalidInput, "the endpoint must look like http://host:port or https://host");
    if (parsed->path() != "/" && !parsed->path().empty())
        return Error(ErrorKind::InvalidInput, "the endpoint must not have a path; put the bucket in the URI");
    config.scheme = parsed->scheme();
    config.endpointHost = parsed->host();
    if (auto port = parsed->port();
        port && !((config.scheme == "http" && *port == 80) || (config.scheme == "https" && *port == 443)))
        config.endpointHost += ":" + std::to_string(*port);
    // Custom endpoints (MinIO, Ceph, s3rver…) rarely have wildcard DNS: path style.
    config.pathStyle = custom;
    if (auto style = uri.queryValue("style")) {
        if (*style == "path")
            config.pathStyle = true;
        else if (*style == "virtual")
            config.pathStyle = false;
        else
            return Error(ErrorKind::InvalidInput, "style must be 'path' or 'virtual'");
    }
    if (!config.pathStyle && config.bucket.find('.') != std::string::npos && config.scheme == "https")
        config.pathStyle = true; // dotted buckets break virtual-host TLS names
    return config;
}

Result<Credentials> loadCredentials(const Config &config)
{
    if (config.anonymous)
        return Credentials{};
    Credentials creds;
    // An explicitly named profile wins over the environment's keys.
    if (config.profile.empty()) {
        creds.accessKeyId = env("AWS_ACCESS_KEY_ID");
        creds.secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
        creds.sessionToken = env("AWS_SESSION_TOKEN");
        if (!creds.accessKeyId.empty() && !creds.secretAccessKey.empty())
            return creds;
    }
    const std::string profile = config.profile.empty() ? "default" : config.profile;
    const std::string credentialsPath = homeFile("AWS_SHARED_CREDENTIALS_FILE", "/.aws/credentials");
    const std::string configPath = homeFile("AWS_CONFIG_FILE", "/.aws/config");
    auto pick = [&](const IniSection &s) {
        auto get = [&](const char *k) {
            auto it = s.find(k);
            return it == s.end() ? std::string() : it->second;
        };
        creds.accessKeyId = get("aws_access_key_id");
        creds.secretAccessKey = get("aws_secret_access_key");
        creds.sessionToken = get("aws_session_token");
        return !creds.accessKeyId.empty() && !creds.secretAccessKey.empty();
    };
    auto credentials = readIni(credentialsPath);
    if (auto it = credentials.find(profile); it != credentials.end() && pick(it->second))
        return creds;
    auto configFile = readIni(configPath);
    const std::string section = profile == "default" ? profile : "profile " + profile;
    if (auto it = configFile.find(section); it != configFile.end() && pick(it->second))
        return creds;
    return Error(ErrorKind::PermissionDenied,
                 "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add profile '" + profile
                     + "' to " + credentialsPath + ", or use ?anonymous=1 for a public bucket");
}

} // namespace strata::s3
