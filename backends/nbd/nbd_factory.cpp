#include "backends/nbd/nbd_factory.h"

#include "backends/nbd/nbd_backend.h"

namespace strata::nbd {

BackendDescription NbdFactory::describe() const
{
    return {
        "NBD disk image",
        {"nbd://HOST[:PORT]/EXPORT", "nbd+unix:///EXPORT?socket=PATH", "nbds://, nbds+unix:// (TLS)"},
        "An NBD export: one object, the image.",
        {{"socket", "PATH", "The server's Unix socket (nbd+unix://)."},
         {"tls-*", "VALUE", "libnbd's TLS settings (tls-certificates, tls-verify-peer, tls-username, tls-psk-file)."},
         {"connections", "N", "Connections to the server (1 to 16)."},
         {"requests", "N", "Requests in flight per connection (1 to 1024; default 64)."},
         {"request-size", "SIZE", "The largest request (4K to 32M; default 256K)."}},
        {{"host", "&Host:", FormField::Kind::Text, "127.0.0.1", {}},
         {"port", "&Port:", FormField::Kind::Text, "10809", {}},
         {"export", "&Export:", FormField::Kind::Text, "optional", {}},
         {"socket", "Unix &socket:", FormField::Kind::Text, "instead of host and port", {}}}};
}

Result<FormConnection> NbdFactory::fromForm(const FormAnswers &answers) const
{
    Uri uri;
    uri.setPath('/' + form::answer(answers, "export"));
    if (const std::string socket = form::answer(answers, "socket"); !socket.empty()) {
        if (!socket.starts_with('/'))
            return Error(ErrorKind::InvalidInput, "The socket must be an absolute path");
        uri.setScheme("nbd+unix");
        uri.setHost({});
        uri.setQuery({{"socket", socket}});
        return FormConnection{uri, {}, {}};
    }
    const std::string host = form::answer(answers, "host");
    if (host.empty() || host.find('/') != std::string::npos)
        return Error(ErrorKind::InvalidInput, "Give the server's host name or address, or a Unix socket");
    const std::string portAnswer = form::answer(answers, "port");
    auto port = portAnswer.empty() ? Result<int>(10809) : form::port(portAnswer);
    if (!port || *port == 0)
        return Error(ErrorKind::InvalidInput, "The port is a number from 1 to 65535");
    uri.setScheme("nbd");
    uri.setHost(host.find(':') != std::string::npos ? "[" + host + "]" : host);
    uri.setPort(std::uint16_t(*port));
    return FormConnection{uri, {}, {}};
}

FormAnswers NbdFactory::toForm(const Uri &uri) const
{
    return {{"host", form::hostOf(uri)},
            {"port", form::portOf(uri)},
            {"export", uri.path().empty() ? std::string() : uri.path().substr(1)},
            {"socket", uri.queryValue("socket").value_or("")}};
}

} // namespace strata::nbd
