#include "core/storage/backend_description.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace strata {

BackendOption timeoutOption()
{
    return {"timeout", "SECONDS", "A request that moves no byte for this long fails (1 to 3600; default 30)."};
}

BackendOption insecureOption()
{
    return {"insecure", "", "Accept a server certificate that cannot be verified."};
}

Status checkOptions(const Uri &uri, const BackendDescription &description)
{
    for (const auto &item : uri.query()) {
        const std::string &key = item.first;
        const auto &options = description.options;
        if (std::any_of(options.begin(), options.end(), [&](const BackendOption &o) {
                return o.name == key
                    || (o.name.ends_with('*')
                        && key.starts_with(std::string_view(o.name).substr(0, o.name.size() - 1)));
            }))
            continue;
        std::string known;
        for (const BackendOption &o : options)
            known += (known.empty() ? "" : ", ") + o.name;
        const std::string scheme = uri.scheme() + (uri.hasAuthority() ? "://" : ":");
        return Error(ErrorKind::InvalidInput,
                     "unknown " + scheme + " option '" + key + "'"
                         + (known.empty() ? " (it takes none)" : " (known: " + known + ")"));
    }
    return {};
}

namespace form {

namespace {

bool hostCharacters(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
            || c == ':' || c == '%' || c == '-';
    });
}

} // namespace

std::string answer(const FormAnswers &answers, std::string_view name)
{
    auto it = answers.find(name);
    if (it == answers.end())
        return {};
    std::string_view v = it->second;
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
        v.remove_suffix(1);
    return std::string(v);
}

Result<std::string> host(const std::string &answer, const std::string &problem)
{
    if (!hostCharacters(answer))
        return Error(ErrorKind::InvalidInput, problem);
    return answer.find(':') != std::string::npos ? "[" + answer + "]" : answer;
}

Result<int> port(const std::string &answer)
{
    if (answer.empty())
        return 0;
    int number = -1;
    auto [ptr, ec] = std::from_chars(answer.data(), answer.data() + answer.size(), number);
    if (ec != std::errc() || ptr != answer.data() + answer.size() || number < 0 || number > 65535)
        return Error(ErrorKind::InvalidInput, "The port is a number from 1 to 65535");
    return number;
}

Result<Uri> server(const FormAnswers &answers, const std::string &scheme, const ServerFields &fields, std::string &user)
{
    auto host = form::host(answer(answers, fields.host), fields.hostProblem);
    if (!host)
        return std::move(host).error();
    auto port = form::port(answer(answers, fields.port));
    if (!port)
        return std::move(port).error();
    user = answer(answers, fields.user);
    if (user.find_first_of(fields.forbidden) != std::string::npos) {
        std::string listed;
        for (std::size_t i = 0; i < fields.forbidden.size(); ++i)
            listed += std::string(i == 0                                 ? ""
                                      : i + 1 == fields.forbidden.size() ? " or "
                                                                         : ", ")
                + "'" + fields.forbidden[i] + "'";
        return Error(ErrorKind::InvalidInput, "A user name has no " + listed);
    }
    std::string text = scheme + "://" + (user.empty() ? "" : percentEncode(user) + '@') + *host;
    if (*port > 0)
        text += ':' + std::to_string(*port);
    auto uri = Uri::parse(text + '/');
    if (!uri)
        return Error(ErrorKind::InvalidInput, fields.hostProblem);
    return uri;
}

FormField timeoutField(std::string name)
{
    return {std::move(name),
            "Time&out:",
            FormField::Kind::Text,
            "seconds without a byte before a request fails (empty: 30)",
            {}};
}

Status timeout(const FormAnswers &answers, std::string_view name, std::vector<Uri::QueryItem> &query)
{
    const std::string value = answer(answers, name);
    if (value.empty())
        return {};
    int seconds = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || ptr != value.data() + value.size() || seconds < 1 || seconds > 3600)
        return Error(ErrorKind::InvalidInput, "The timeout is a number of seconds from 1 to 3600");
    query.emplace_back("timeout", std::to_string(seconds));
    return {};
}

Status serverOptions(const FormAnswers &answers, Uri &uri, const FileOption &file, std::string_view timeoutName)
{
    std::vector<Uri::QueryItem> query;
    if (const std::string given = answer(answers, file.field); !given.empty()) {
        auto path = localPath(given, std::string(file.what));
        if (!path)
            return std::move(path).error();
        query.emplace_back(std::string(file.option), *path);
    }
    if (auto st = timeout(answers, timeoutName, query); !st)
        return st;
    if (!query.empty())
        uri.setQuery(std::move(query));
    return {};
}

Result<Uri> httpUrl(const std::string &answer, const std::string &what)
{
    auto url = Uri::parse(answer);
    if (!url || (url->scheme() != "http" && url->scheme() != "https") || !url->hasAuthority()
        || !hostCharacters(hostOf(*url)))
        return Error(ErrorKind::InvalidInput, what + " must be a URL like http://host:port or https://host");
    return url;
}

Result<std::string> localPath(const std::string &answer, const std::string &what)
{
    std::string path = answer;
    if (path == "~" || path.starts_with("~/")) {
        const char *home = std::getenv("HOME");
        path = std::string(home ? home : "") + path.substr(1);
    }
    if (!path.starts_with('/'))
        return Error(ErrorKind::InvalidInput, what + " is an absolute path (or starts with ~/)");
    return path;
}

std::string hostOf(const Uri &uri)
{
    std::string host = uri.host();
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return host;
}

std::string portOf(const Uri &uri)
{
    return uri.port() ? std::to_string(*uri.port()) : std::string();
}

std::string userOf(const Uri &uri)
{
    auto user = percentDecode(uri.userInfo(), Escapes::Lenient);
    return user ? *user : uri.userInfo();
}

} // namespace form

} // namespace strata
