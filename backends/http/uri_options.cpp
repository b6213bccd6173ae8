#include "backends/http/uri_options.h"

#include <QString>

#include <cstdlib>

namespace strata::http {

std::string environment(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool truthy(const std::optional<std::string> &value)
{
    return value && (value->empty() || *value == "1" || *value == "true" || *value == "yes");
}

Result<int> timeoutOption(const Uri &uri, int fallback)
{
    auto timeout = uri.queryValue("timeout");
    if (!timeout)
        return fallback;
    bool ok = false;
    const int seconds = QString::fromStdString(*timeout).toInt(&ok);
    if (!ok || seconds < 1 || seconds > 3600)
        return Error(ErrorKind::InvalidInput, "timeout must be a number of seconds from 1 to 3600");
    return seconds;
}

} // namespace strata::http
