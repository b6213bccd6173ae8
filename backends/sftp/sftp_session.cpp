#include "backends/sftp/sftp_session.h"

#include "backends/sftp/ssh_config.h"

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <openssl/evp.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::sftp {

namespace {

std::string homeFolder()
{
    if (const char *home = std::getenv("HOME"); home && *home)
        return home;
    const passwd *pw = ::getpwuid(::getuid());
    return pw && pw->pw_dir ? pw->pw_dir : "/";
}

std::string localUser()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw && pw->pw_name ? pw->pw_name : "";
}

bool exists(const std::string &path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

Result<unsigned> number(std::string_view text, unsigned lo, unsigned hi, std::string_view key)
{
    unsigned value = 0;
    const auto *end = text.data() + text.size();
    if (auto [p, ec] = std::from_chars(text.data(), end, value);
        ec != std::errc() || p != end || value < lo || value > hi)
        return Error(ErrorKind::InvalidInput,
                     std::string(key) + " must be a number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return value;
}

std::string base64(std::string_view bytes)
{
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                  reinterpret_cast<const unsigned char *>(bytes.data()), int(bytes.size()));
    out.resize(std::size_t(std::max(n, 0)));
    return out;
}

// The algorithm name a key blob starts with ("ssh-ed25519"), and how OpenSSH names its kind.
std::string blobType(std::string_view blob)
{
    if (blob.size() < 4)
        return {};
    const std::uint32_t len = std::uint32_t(std::uint8_t(blob[0])) << 24 | std::uint32_t(std::uint8_t(blob[1])) << 16
        | std::uint32_t(std::uint8_t(blob[2])) << 8 | std::uint32_t(std::uint8_t(blob[3]));
    return len <= blob.size() - 4 ? std::string(blob.substr(4, len)) : std::string();
}

std::string kindOf(std::string_view algorithm)
{
    if (algorithm == "ssh-ed25519")
        return "ED25519";
    if (algorithm.starts_with("ecdsa-"))
        return "ECDSA";
    if (algorithm == "ssh-rsa")
        return "RSA";
    if (algorithm == "ssh-dss")
        return "DSA";
    return std::string(algorithm);
}

int knownHostKeyBits(int hostKeyType)
{
    switch (hostKeyType) {
    case LIBSSH2_HOSTKEY_TYPE_RSA: return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
    case LIBSSH2_HOSTKEY_TYPE_DSS: return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
    case LIBSSH2_HOSTKEY_TYPE_ED25519: return LIBSSH2_KNOWNHOST_KEY_ED25519;
    default: return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
    }
}

// known_hosts lines libssh2 can read; markers (@cert-authority, @revoked) and key types it
// does not know are passed over one by one, where its own file reader stops at the first.
bool usableLine(const std::string &line)
{
    const auto start = line.find_first_not_of(" \t");
    return start != std::string::npos && line[start] != '#' && line[start] != '@';
}

struct KnownHosts {
    LIBSSH2_KNOWNHOSTS *hosts;
    explicit KnownHosts(LIBSSH2_SESSION *session) : hosts(libssh2_knownhost_init(session)) {}
    ~KnownHosts()
    {
        if (hosts)
            libssh2_knownhost_free(hosts);
    }
    void add(const std::string &line)
    {
        (void)libssh2_knownhost_readline(hosts, line.data(), line.size(), LIBSSH2_KNOWNHOST_FILE_OPENSSH);
    }
};

// Whether a private key file is encrypted: OpenSSH's format names its cipher ("none" when
// not), PEM says ENCRYPTED. Asked before logging in: libssh2 reports a key it cannot
// decrypt like a key the server refused.
bool needsPassphrase(const std::string &file)
{
    std::ifstream in(file);
    std::string line, body;
    bool openssh = false, inside = false;
    while (std::getline(in, line)) {
        if (line.find("ENCRYPTED") != std::string::npos)
            return true; // PEM: "Proc-Type: 4,ENCRYPTED", "BEGIN ENCRYPTED PRIVATE KEY"
        if (line.starts_with("-----BEGIN OPENSSH PRIVATE KEY-----")) {
            openssh = inside = true;
            continue;
        }
        if (line.starts_with("-----END"))
            break;
        if (inside)
            body += line;
        if (body.size() > 200)
            break; // the cipher name is near the start
    }
    if (!openssh || body.size() < 8)
        return false;
    body.resize(body.size() / 4 * 4);
    std::string raw(body.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char *>(raw.data()),
                                  reinterpret_cast<const unsigned char *>(body.data()), int(body.size()));
    constexpr std::string_view magic("openssh-key-v1\0", 15);
    if (n < int(magic.size()) + 4 || std::string_view(raw).substr(0, magic.size()) != magic)
        return false;
    const std::string cipher = blobType(std::string_view(raw).substr(magic.size()));
    return !cipher.empty() && cipher != "none";
}

std::once_flag g_libssh2Once;

void keyboardInteractive(const char *, int, const char *, int, int prompts, const LIBSSH2_USERAUTH_KBDINT_PROMPT *,
                         LIBSSH2_USERAUTH_KBDINT_RESPONSE *responses, void **abstract)
{
    const auto *password = static_cast<const std::string *>(*abstract);
    for (int i = 0; i < prompts; ++i) {
        responses[i].text = ::strdup(password ? password->c_str() : "");
        responses[i].length = responses[i].text ? unsigned(std::strlen(responses[i].text)) : 0;
    }
}

} // namespace

std::string fingerprint(std::string_view keyBlob)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned size = 0;
    EVP_Digest(keyBlob.data(), keyBlob.size(), digest, &size, EVP_sha256(), nullptr);
    std::string text = base64(std::string_view(reinterpret_cast<const char *>(digest), size));
    while (!text.empty() && text.back() == '=')
        text.pop_back();
    return "SHA256:" + text;
}

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    config.uri = uri;
    if (!uri.hasAuthority() || uri.host().empty())
        return Error(ErrorKind::InvalidInput, "an sftp:// URI names a server: sftp://user@host[:port]/path");
    if (uri.userInfo().find(':') != std::string::npos)
        return Error(ErrorKind::InvalidInput,
                     "a password never goes in an sftp:// URI; save it with the connection "
                     "(desktop app) or set STRATA_SFTP_PASSWORD");
    config.alias = uri.host();
    const std::string &path = uri.path();
    config.home = path == "/~" || path.starts_with("/~/");

    std::string sshConfig = homeFolder() + "/.ssh/config";
    std::string identity, knownHosts;
    for (const auto &[key, value] : uri.query()) {
        if (key == "identity") {
            identity = value;
        } else if (key == "known-hosts") {
            knownHosts = value;
        } else if (key == "ssh-config") {
            sshConfig = value;
        } else if (key == "connections") {
            auto n = number(value, 1, 64, "connections");
            if (!n)
                return std::move(n).error();
            config.connections = *n;
        } else if (key == "timeout") {
            auto n = number(value, 1, 3600, "timeout");
            if (!n)
                return std::move(n).error();
            config.timeoutMs = int(*n) * 1000;
        } else {
            return Error(ErrorKind::InvalidInput,
                         "unknown sftp:// option '" + key
                             + "' (known: identity, known-hosts, ssh-config, connections, "
                               "timeout)");
        }
    }
    const SshConfigContext context{homeFolder(), localUser()};
    const SshHostConfig host = readSshConfig(sshConfig, config.alias, context);
    config.host = host.hostName.empty() ? config.alias : host.hostName;
    config.user = !uri.userInfo().empty() ? uri.userInfo() : !host.user.empty() ? host.user : context.localUser;
    config.port = uri.port().value_or(host.port.value_or(22));
    if (host.connectTimeout && !uri.queryValue("timeout"))
        config.timeoutMs = *host.connectTimeout * 1000;
    if (!identity.empty())
        config.identityFiles.push_back(identity);
    config.identityFiles.insert(config.identityFiles.end(), host.identityFiles.begin(), host.identityFiles.end());
    config.identitiesOnly = !identity.empty() || host.identitiesOnly.value_or(false);
    if (!config.identitiesOnly)
        for (const char *name : {"id_ed25519", "id_ecdsa", "id_rsa"})
            config.identityFiles.push_back(context.home + "/.ssh/" + name);
    if (!knownHosts.empty())
        config.knownHostsFiles = {knownHosts};
    else if (!host.knownHostsFiles.empty())
        config.knownHostsFiles = host.knownHostsFiles;
    else
        config.knownHostsFiles = {context.home + "/.ssh/known_hosts", context.home + "/.ssh/known_hosts2"};
    if (knownHosts.empty())
        config.knownHostsFiles.push_back("/etc/ssh/ssh_known_hosts"); // read, never written
    if (const char *password = std::getenv("STRATA_SFTP_PASSWORD"))
        config.password = password;
    return config;
}

void Session::closeRead()
{
    if (m_read.handle)
        libssh2_sftp_close_handle(m_read.handle);
    m_read = {};
}

Session::~Session()
{
    if (!m_broken)
        closeRead();
    if (m_sftp)
        libssh2_sftp_shutdown(m_sftp);
    if (m_ssh) {
        if (!m_broken)
            libssh2_session_disconnect(m_ssh, "done");
        libssh2_session_free(m_ssh);
    }
    if (m_socket >= 0)
        ::close(m_socket);
}

Result<std::unique_ptr<Session>> Session::open(const Config &config, const ConnectionPrompts &prompts,
                                               std::string &learned)
{
    std::call_once(g_libssh2Once, [] { libssh2_init(0); });
    std::unique_ptr<Session> session(new Session);
    if (auto st = session->connect(config); !st)
        return std::move(st).error();
    if (auto st = session->checkHostKey(config, prompts.hostKey); !st)
        return std::move(st).error();
    if (auto st = session->login(config, prompts.passphrase, learned); !st)
        return std::move(st).error();
    session->m_sftp = libssh2_sftp_init(session->m_ssh);
    if (!session->m_sftp)
        return session->error(libssh2_session_last_errno(session->m_ssh), "the server offers no SFTP");
    return session;
}

Status Session::connect(const Config &config)
{
    const std::string where = config.host + ":" + std::to_string(config.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (int rc = ::getaddrinfo(config.host.c_str(), std::to_string(config.port).c_str(), &hints, &found); rc != 0)
        return Error(ErrorKind::Network, "cannot find " + config.host + ": " + ::gai_strerror(rc)).setTemporary(true);
    int lastErrno = ECONNREFUSED;
    for (addrinfo *a = found; a && m_socket < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0)
            continue;
        int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            rc = ::poll(&p, 1, config.timeoutMs);
            int err = rc == 0 ? ETIMEDOUT : 0;
            socklen_t len = sizeof err;
            if (rc > 0)
                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            rc = err ? -1 : 0;
            errno = err;
        }
        if (rc != 0) {
            lastErrno = errno;
            ::close(fd);
            continue;
        }
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        m_socket = fd;
    }
    ::freeaddrinfo(found);
    if (m_socket < 0)
        return errorFromErrno(lastErrno, "cannot connect to " + where).setTemporary(true);

    m_ssh = libssh2_session_init_ex(nullptr, nullptr, nullptr, &m_password);
    if (!m_ssh)
        return Error(ErrorKind::Unexpected, "libssh2 could not make a session");
    libssh2_session_set_blocking(m_ssh, 1);
    libssh2_session_set_timeout(m_ssh, long(config.timeoutMs));
    // OpenSSH's order: the key a server sends is the one `ssh` recorded in known_hosts.
    // Only names this libssh2 knows: 1.10 drops unknown ones with an overlapping memcpy
    // (ASan stops there).
    const char **known = nullptr;
    const int count = libssh2_session_supported_algs(m_ssh, LIBSSH2_METHOD_HOSTKEY, &known);
    std::string wanted;
    for (const char *name : {"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
                             "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"})
        for (int i = 0; i < count; ++i)
            if (std::strcmp(known[i], name) == 0)
                wanted += (wanted.empty() ? "" : ",") + std::string(name);
    if (count > 0)
        libssh2_free(m_ssh, static_cast<void *>(known));
    if (!wanted.empty())
        libssh2_session_method_pref(m_ssh, LIBSSH2_METHOD_HOSTKEY, wanted.c_str());
    if (int rc = libssh2_session_handshake(m_ssh, m_socket); rc != 0)
        return error(rc, "the SSH handshake with " + where + " failed");
    return {};
}

Status Session::checkHostKey(const Config &config, const HostKeyPrompt &prompt)
{
    std::size_t length = 0;
    int type = 0;
    const char *key = libssh2_session_hostkey(m_ssh, &length, &type);
    if (!key)
        return error(libssh2_session_last_errno(m_ssh), "the server sent no host key");
    const std::string_view blob(key, length);
    const std::string print = fingerprint(blob);
    const std::string kind = kindOf(blobType(blob));
    const std::string label = config.port == 22 ? config.host : "[" + config.host + "]:" + std::to_string(config.port);
    const int mask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | knownHostKeyBits(type);
    auto check = [&](KnownHosts &hosts) {
        libssh2_knownhost *match = nullptr;
        return libssh2_knownhost_checkp(hosts.hosts, config.host.c_str(), config.port, key, length, mask, &match);
    };

    KnownHosts all(m_ssh);
    for (const auto &file : config.knownHostsFiles) {
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);)
            if (usableLine(line))
                all.add(line);
    }
    const int found = check(all);
    if (found == LIBSSH2_KNOWNHOST_CHECK_MATCH)
        return {};
    if (found == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
        // Where the other key is, as OpenSSH says it ("Offending ED25519 key in FILE:LINE").
        std::string offending;
        for (const auto &file : config.knownHostsFiles) {
            std::ifstream in(file);
            int number = 0;
            for (std::string line; offending.empty() && std::getline(in, line);) {
                ++number;
                KnownHosts one(m_ssh);
                if (usableLine(line))
                    one.add(line);
                if (check(one) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
                    offending = file + ":" + std::to_string(number);
            }
        }
        m_broken = true;
        return Error(ErrorKind::PermissionDenied,
                     "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! IT IS POSSIBLE THAT SOMEONE IS DOING "
                     "SOMETHING NASTY! The "
                         + kind + " key sent by " + label + " has the fingerprint " + print
                         + ", not the one known for it"
                         + (offending.empty() ? std::string() : " (offending key in " + offending + ")")
                         + ". Nothing was sent. If the server's key was changed on purpose, remove the old one "
                           "with: ssh-keygen -R '"
                         + label + "'");
    }
    const std::string &store = config.knownHostsFiles.front();
    HostKeyQuestion question{label, kind, print, store};
    if (!prompt || prompt(question) != HostKeyAnswer::Accept) {
        m_broken = true;
        return Error(ErrorKind::PermissionDenied,
                     "the host key of " + label + " is not known (" + kind + " key " + print + ", in no file of "
                         + store
                         + "). Check the fingerprint with the server's administrator, then connect once with "
                           "--accept-new-host-key (command line) or accept it when asked (desktop app)");
    }
    // Added as one line at the end: the rest of the file is never rewritten.
    const auto slash = store.rfind('/');
    if (slash != std::string::npos && slash > 0)
        ::mkdir(store.substr(0, slash).c_str(), 0700);
    std::string line = label + " " + blobType(blob) + " " + base64(blob) + "\n";
    int fd = ::open(store.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return errorFromErrno(errno, "cannot add the host key to " + store);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        char last = '\n';
        if (::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
            line.insert(line.begin(), '\n');
    }
    const bool written = ::write(fd, line.data(), line.size()) == ssize_t(line.size());
    ::close(fd);
    if (!written)
        return Error(ErrorKind::Unexpected, "cannot add the host key to " + store);
    return {};
}

Status Session::login(const Config &config, const PassphrasePrompt &prompt, std::string &learned)
{
    const std::string &user = config.user;
    const unsigned userLength = unsigned(user.size());
    const char *methods = libssh2_userauth_list(m_ssh, user.c_str(), userLength);
    if (!methods) {
        if (libssh2_userauth_authenticated(m_ssh))
            return {};
        return error(libssh2_session_last_errno(m_ssh), "the server did not say how to log in");
    }
    const std::string offered = methods;
    auto offers = [&](std::string_view method) { return offered.find(method) != std::string::npos; };
    std::vector<std::string> tried;
    auto failedHard = [&](int rc) {
        return rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_TIMEOUT
            || rc == LIBSSH2_ERROR_SOCKET_DISCONNECT;
    };
    const char *passphrase = config.password.empty() ? nullptr : config.password.c_str();

    if (offers("publickey")) {
        if (!config.identitiesOnly && std::getenv("SSH_AUTH_SOCK")) {
            LIBSSH2_AGENT *agent = libssh2_agent_init(m_ssh);
            bool in = false;
            int keys = 0;
            if (agent && libssh2_agent_connect(agent) == 0 && libssh2_agent_list_identities(agent) == 0) {
                libssh2_agent_publickey *identity = nullptr, *previous = nullptr;
                while (!in && libssh2_agent_get_identity(agent, &identity, previous) == 0) {
                    ++keys;
                    in = libssh2_agent_userauth(agent, user.c_str(), identity) == 0;
                    previous = identity;
                }
                libssh2_agent_disconnect(agent);
            }
            if (agent)
                libssh2_agent_free(agent);
            if (in)
                return {};
            tried.push_back("the agent's " + std::to_string(keys) + (keys == 1 ? " key" : " keys"));
        }
        for (const auto &file : config.identityFiles) {
            if (!exists(file))
                continue;
            const std::string pub = file + ".pub";
            const bool locked = needsPassphrase(file);
            const char *secret = locked ? passphrase : nullptr;
            std::optional<std::string> answer;
            // A key that needs a passphrase none was given for: asked, once per pool.
            if (locked && !secret && prompt && (answer = prompt(PassphraseQuestion{file, user + "@" + config.host})))
                secret = answer->c_str();
            if (locked && !secret) {
                tried.push_back(file + " (it needs a passphrase)");
                continue;
            }
            const int rc = libssh2_userauth_publickey_fromfile_ex(
                m_ssh, user.c_str(), userLength, exists(pub) ? pub.c_str() : nullptr, file.c_str(), secret);
            if (rc == 0) {
                if (answer)
                    learned = std::move(*answer);
                return {};
            }
            if (failedHard(rc))
                return error(rc, "the server closed the connection during the login");
            // libssh2 says the same for a key it cannot decrypt and a key the server refused.
            tried.push_back(locked ? file + " (refused: a wrong passphrase, or a key it does not know)"
                                : rc == LIBSSH2_ERROR_FILE ? file + " (cannot read it)"
                                                           : file);
        }
    }
    if (!config.password.empty() && offers("password")) {
        const int rc = libssh2_userauth_password_ex(m_ssh, user.c_str(), userLength, config.password.c_str(),
                                                    unsigned(config.password.size()), nullptr);
        if (rc == 0)
            return {};
        if (failedHard(rc))
            return error(rc, "the server closed the connection during the login");
        tried.push_back("a password");
    } else if (!config.password.empty() && offers("keyboard-interactive")) {
        m_password = config.password;
        const int rc = libssh2_userauth_keyboard_interactive_ex(m_ssh, user.c_str(), userLength, keyboardInteractive);
        m_password.clear();
        if (rc == 0)
            return {};
        if (failedHard(rc))
            return error(rc, "the server closed the connection during the login");
        tried.push_back("a password");
    }
    m_broken = true;
    std::string list;
    for (const auto &t : tried)
        list += (list.empty() ? "" : ", ") + t;
    return Error(ErrorKind::PermissionDenied,
                 user + "@" + config.host + " refused the login (it takes " + offered + "; tried "
                     + (list.empty() ? "nothing: no key found and no password given" : list)
                     + "). Add a key to ssh-agent or ~/.ssh, or give the password (STRATA_SFTP_PASSWORD, or save it "
                       "with the connection)");
}

Result<std::string> Session::home()
{
    if (!m_home.empty())
        return m_home;
    char buffer[4096];
    const int rc = libssh2_sftp_realpath(m_sftp, ".", buffer, sizeof buffer);
    if (rc < 0)
        return error(rc, "cannot find the login folder");
    m_home.assign(buffer, std::size_t(rc));
    return m_home;
}

Error Session::error(int rc, std::string_view what)
{
    if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL && m_sftp) {
        const unsigned long code = libssh2_sftp_last_error(m_sftp);
        ErrorKind kind = ErrorKind::Unexpected;
        std::string text = "the server answered " + std::to_string(code);
        switch (code) {
        case LIBSSH2_FX_NO_SUCH_FILE:
        case LIBSSH2_FX_NO_SUCH_PATH: kind = ErrorKind::NotFound, text = "no such file"; break;
        case LIBSSH2_FX_PERMISSION_DENIED:
        case LIBSSH2_FX_WRITE_PROTECT: kind = ErrorKind::PermissionDenied, text = "permission denied"; break;
        case LIBSSH2_FX_FILE_ALREADY_EXISTS: kind = ErrorKind::AlreadyExists, text = "it exists"; break;
        case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
        case LIBSSH2_FX_QUOTA_EXCEEDED: kind = ErrorKind::NoSpace, text = "no space left"; break;
        case LIBSSH2_FX_DIR_NOT_EMPTY: kind = ErrorKind::DirectoryNotEmpty, text = "the folder is not empty"; break;
        case LIBSSH2_FX_NOT_A_DIRECTORY: kind = ErrorKind::NotDirectory, text = "not a folder"; break;
        case LIBSSH2_FX_OP_UNSUPPORTED: kind = ErrorKind::Unsupported, text = "the server does not do that"; break;
        case LIBSSH2_FX_INVALID_FILENAME: kind = ErrorKind::InvalidInput, text = "the server refuses the name"; break;
        case LIBSSH2_FX_FAILURE: text = "the server failed (SSH_FX_FAILURE)"; break;
        default: break;
        }
        return Error(kind, std::string(what) + ": " + text);
    }
    char *message = nullptr;
    libssh2_session_last_error(m_ssh, &message, nullptr, 0);
    m_broken = true;
    const ErrorKind kind = rc == LIBSSH2_ERROR_TIMEOUT ? ErrorKind::Timeout : ErrorKind::Network;
    return Error(kind, std::string(what) + ": " + (message && *message ? message : "the connection failed"))
        .setTemporary(true);
}

Result<SessionPool::Lease> SessionPool::lease(std::string_view readPath, std::uint64_t offset)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            auto pick = m_idle.end() - 1;
            if (!readPath.empty())
                for (auto it = m_idle.begin(); it != m_idle.end(); ++it)
                    if (const auto &open = (*it)->openRead();
                        open.handle && open.path == readPath && open.next == offset)
                        pick = it;
            auto session = std::move(*pick);
            m_idle.erase(pick);
            return Lease(this, std::move(session));
        }
    }
    Config config;
    {
        std::lock_guard lock(m_mutex);
        config = m_config;
    }
    std::string learned;
    auto session = Session::open(config, m_prompts, learned);
    if (!session)
        return std::move(session).error();
    if (!learned.empty()) {
        std::lock_guard lock(m_mutex);
        m_config.password = std::move(learned);
    }
    return Lease(this, std::move(*session));
}

void SessionPool::giveBack(std::unique_ptr<Session> session)
{
    if (session->broken())
        return;
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < m_config.connections)
        m_idle.push_back(std::move(session));
}

} // namespace strata::sftp
