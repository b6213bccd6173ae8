#include "core/storage/backend_description.h"

#include <algorithm>

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

} // namespace strata
