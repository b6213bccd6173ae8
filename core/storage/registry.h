#pragma once

#include "core/storage/backend_description.h"
#include "core/storage/operator.h"
#include "core/storage/uri.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata {

// Which backend instance a URI names, and the path inside it.
struct Target {
    std::string key;  // identifies the instance ("memory://demo"); equal keys share one
    std::string path; // the URI's path inside that backend
    // The connection whose secret it uses, when not its own key (an s3://…?versionId=
    // instance uses its bucket's).
    std::string secretKey = {};
};

// A secret a connection profile supplies (the desktop app's keychain), used instead of
// the environment or configuration files. Never printed.
struct ConnectionSecret {
    std::string user;   // access key id, user name
    std::string secret; // secret access key, password
    std::string token;  // session token, where there is one
};

// A server whose identity this machine has never seen (an SSH host key in no known_hosts
// file): whether to trust it. Asked before any credential is sent.
struct HostKeyQuestion {
    std::string host;        // as known_hosts names it: "example.org", "[127.0.0.1]:2222"
    std::string keyType;     // "ED25519", "ECDSA", "RSA"
    std::string fingerprint; // "SHA256:…", as OpenSSH prints it
    std::string knownHosts;  // the file an accepted key is added to
};
enum class HostKeyAnswer { Refuse, Accept }; // Accept: trusted now and added to knownHosts
// Called from the thread that opens the connection; may block while a person decides.
using HostKeyPrompt = std::function<HostKeyAnswer(const HostKeyQuestion &)>;
// A key file that needs a passphrase none was given for: its passphrase, or nullopt when
// the person declines. Called like a HostKeyPrompt; never with the answer printed.
struct PassphraseQuestion {
    std::string keyFile;
    std::string login; // "ann@files.example.org"
};
using PassphrasePrompt = std::function<std::optional<std::string>(const PassphraseQuestion &)>;
// What a connection may ask a person while it opens; an empty one is never asked (a
// server never seen is refused, a key without its passphrase skipped).
struct ConnectionPrompts {
    HostKeyPrompt hostKey;
    PassphrasePrompt passphrase;
};

// Makes backends for one URI scheme.
class BackendFactory {
public:
    virtual ~BackendFactory() = default;
    virtual std::string scheme() const = 0;
    // A one-line hint for messages, like "memory://STORE/path".
    virtual std::string example() const = 0;
    // What it is, how its URIs are written and the options they take (help, man page).
    // Factories of one backend (webdav://, webdavs://) give the same description, listed
    // once. By default: the scheme as title, example() as the one form, no option.
    virtual BackendDescription describe() const { return {scheme(), {example()}, {}, {}, {}}; }
    // The connection a filled form makes (describe().form), or what is wrong with it, in a
    // sentence for the form. Any scheme of the backend's (ftp:// or ftps://).
    virtual Result<FormConnection> fromForm(const FormAnswers &answers) const
    {
        (void)answers;
        return Error(ErrorKind::Unsupported, "no connection form");
    }
    // The answers that make `uri` (a saved connection's; its user and secret are the
    // caller's to add), for a URI of any of the backend's schemes.
    virtual FormAnswers toForm(const Uri &uri) const
    {
        (void)uri;
        return {};
    }
    // Checks the URI, its ?options against describe() (checkOptions) and then the
    // backend's own rules (locate), and splits it into instance key and path; no I/O.
    Result<Target> resolve(const Uri &uri);
    // Creates the instance for a key resolve() returned (called once per key), with the
    // secret a caller gave, empty when none (schemes without secrets ignore it).
    virtual Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                                    const ConnectionSecret &secret) = 0;
    // Who answers what a connection asks (ConnectionPrompts); schemes that ask nothing
    // ignore it.
    virtual void setPrompts(const ConnectionPrompts &prompts) { (void)prompts; }

protected:
    // The backend's own check of a URI whose options it takes: instance key and path.
    virtual Result<Target> locate(const Uri &uri) = 0;
};

// What a factory's create() returns for a backend its open() made (a shared_ptr or a
// unique_ptr to it), or the error it failed with.
template <class Pointer>
Result<std::shared_ptr<Backend>> sharedBackend(Result<Pointer> made)
{
    if (!made)
        return std::move(made).error();
    return std::shared_ptr<Backend>(std::move(*made));
}

// Where a URI points: the operator of its backend and the path inside it.
struct Location {
    std::shared_ptr<Operator> op;
    std::string path;

    std::string display() const { return op->display(path); }
    // Whether two locations are on the same backend instance (server-side copy possible).
    bool sameBackend(const Location &other) const { return op == other.op; }
};

// Scheme -> factory. Backends are opened once per key and shared, so two URIs on the
// same store or server reuse one operator (and its connections). The desktop app owns its
// registries through a shared_ptr: a background task opening a URI keeps the registry it
// uses (shared_from_this), so a window closed meanwhile never leaves it dangling.
class Registry : public std::enable_shared_from_this<Registry> {
public:
    explicit Registry(OperatorOptions options = {});

    // Factories are added before use and never removed.
    void add(std::unique_ptr<BackendFactory> factory);
    std::vector<std::string> schemes() const;
    // Each backend's description once (the first factory's of those that give the same
    // title), in the order they were added.
    std::vector<BackendDescription> descriptions() const;
    // The factory of `scheme` (it lives as long as the registry); null when none.
    BackendFactory *factory(std::string_view scheme) const;
    // Each backend's first factory, as descriptions() lists them.
    std::vector<BackendFactory *> backends() const;

    Result<Location> open(std::string_view uriText);
    Result<Location> open(const Uri &uri);
    // The secret for the backend instance `uri` names, from now on (an instance already
    // open with other credentials is opened again). An empty secret clears it.
    Status setSecret(std::string_view uriText, ConnectionSecret secret);
    // Who answers what connections ask, for every factory (see ConnectionPrompts).
    void setPrompts(const ConnectionPrompts &prompts);
    // Backend::hangUp() of every instance open: the process is ending.
    void hangUp();

private:
    OperatorOptions m_options;
    mutable std::mutex m_mutex;
    std::map<std::string, std::unique_ptr<BackendFactory>, std::less<>> m_factories;
    std::vector<std::string> m_added; // schemes, in the order they were added
    std::map<std::string, std::shared_ptr<Operator>, std::less<>> m_operators;
    std::map<std::string, ConnectionSecret, std::less<>> m_secrets; // by instance key
    ConnectionPrompts m_prompts;
    bool m_hungUp = false;
};

} // namespace strata
