#include "core/storage/configured_factory.h"

#include <cstdio>

namespace strata {

void warnUnverifiedTls(const std::string &hostPort)
{
    std::fprintf(stderr,
                 "strata: warning: TLS certificates of %s are NOT verified (?insecure=1); anyone on the path can read "
                 "and change the data\n",
                 hostPort.c_str());
}

void warnPlainPassword(const std::string &hostPort, const std::string &how, const std::string &risk)
{
    std::fprintf(stderr, "strata: warning: the password for %s goes over plain %s; %s\n", hostPort.c_str(), how.c_str(),
                 risk.c_str());
}

} // namespace strata
