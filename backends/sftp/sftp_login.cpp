// The SSH side of a Session: the server's host key checked against known_hosts (or the
// connection's prompts), and the login (agent, key files with their passphrases,
// passwords, keyboard-interactive).
#include "backends/sftp/sftp_session.h"

#include <libssh/libssh.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::sftp {

namespace {

bool exists(const std::string &path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string base64(std::string_view bytes)
{
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                  reinterpret_cast<const unsigned char *>(bytes.data()), int(bytes.size()));
    out.resize(std::size_t(std::max(n, 0)));
    return out;
}

std::string unbase64(std::string_view text)
{
    std::string out(text.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                  reinterpret_cast<const unsigned char *>(text.data()), int(text.size() / 4 * 4));
    const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
    out.resize(n < 0 ? 0 : std::size_t(n) - std::min<std::size_t>(padding, std::size_t(n)));
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

// known_hosts lines to read: markers (@cert-authority, @revoked) are not host keys.
bool usableLine(const std::string &line)
{
    const auto start = line.find_first_not_of(" \t");
    return start != std::string::npos && line[start] != '#' && line[start] != '@';
}

// What a known_hosts line says of the server's key: nothing (another host, or a line
// libssh cannot read: a key type it does not know), the same key, or another key of the
// same type (changed) or of another type.
enum class LineSays { Nothing, Same, Changed, OtherType };

LineSays compareLine(const std::string &hostLabel, const std::string &line, ssh_key key)
{
    ssh_knownhosts_entry *entry = nullptr;
    // libssh splits fields at spaces only; OpenSSH also at tabs (a changed key on a line
    // written with tabs must not pass for an unknown one).
    std::string spaced = line;
    std::replace(spaced.begin(), spaced.end(), '\t', ' ');
    if (!usableLine(spaced) || ssh_known_hosts_parse_line(hostLabel.c_str(), spaced.c_str(), &entry) != SSH_OK
        || !entry)
        return LineSays::Nothing;
    LineSays says = LineSays::Nothing;
    if (entry->publickey) {
        if (ssh_key_cmp(entry->publickey, key, SSH_KEY_CMP_PUBLIC) == 0)
            says = LineSays::Same;
        else
            says = ssh_key_type(entry->publickey) == ssh_key_type(key) ? LineSays::Changed : LineSays::OtherType;
    }
    ssh_knownhosts_entry_free(entry);
    return says;
}

// Whether a private key file is encrypted: OpenSSH's format names its cipher ("none" when
// not), PEM says ENCRYPTED. Asked before a key is read: a person is asked for the
// passphrase of a key that has one, and only then.
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

// The methods a server takes, as OpenSSH names them.
std::string methodNames(int methods)
{
    std::string names;
    auto add = [&](int bit, const char *name) {
        if (methods & bit)
            names += (names.empty() ? "" : ",") + std::string(name);
    };
    add(SSH_AUTH_METHOD_PUBLICKEY, "publickey");
    add(SSH_AUTH_METHOD_PASSWORD, "password");
    add(SSH_AUTH_METHOD_INTERACTIVE, "keyboard-interactive");
    add(SSH_AUTH_METHOD_HOSTBASED, "hostbased");
    return names.empty() ? "nothing" : names;
}

// Who owns what libssh hands out.
struct KeyHolder {
    ssh_key key = nullptr;
    ~KeyHolder() { ssh_key_free(key); }
};

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

Status Session::checkHostKey(const Config &config, const HostKeyPrompt &prompt)
{
    KeyHolder key;
    char *encoded = nullptr;
    if (ssh_get_server_publickey(m_ssh, &key.key) != SSH_OK
        || ssh_pki_export_pubkey_base64(key.key, &encoded) != SSH_OK) {
        m_broken = true;
        return Error(ErrorKind::Network, std::string("the server sent no host key: ") + ssh_get_error(m_ssh));
    }
    const std::string blob = unbase64(encoded);
    ssh_string_free_char(encoded);
    const std::string print = fingerprint(blob);
    const std::string kind = kindOf(blobType(blob));
    const std::string label = config.port == 22 ? config.host : "[" + config.host + "]:" + std::to_string(config.port);
    std::string lowered = label;
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });

    // Every file, line by line: a match anywhere is enough; a changed key is named by
    // where it is, as OpenSSH says it ("Offending ED25519 key in FILE:LINE").
    bool same = false;
    std::string offending;
    for (const auto &file : config.knownHostsFiles) {
        std::ifstream in(file);
        int number = 0;
        for (std::string line; !same && std::getline(in, line);) {
            ++number;
            const LineSays says = compareLine(lowered, line, key.key);
            same = says == LineSays::Same;
            if (says == LineSays::Changed && offending.empty())
                offending = file + ":" + std::to_string(number);
        }
    }
    if (same)
        return {};
    if (!offending.empty()) {
        m_broken = true;
        return Error(ErrorKind::PermissionDenied,
                     "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! IT IS POSSIBLE THAT SOMEONE IS DOING "
                     "SOMETHING NASTY! The "
                         + kind + " key sent by " + label + " has the fingerprint " + print
                         + ", not the one known for it (offending key in " + offending
                         + "). Nothing was sent. If the server's key was changed on purpose, remove the old one "
                           "with: ssh-keygen -R '"
                         + label + "'");
    }
    const std::string &store = config.knownHostsFiles.front();
    HostKeyQuestion question{label, kind, print, store};
    if (!prompt || unwatched([&] { return prompt(question); }) != HostKeyAnswer::Accept) {
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

Status Session::loginWithKey(const Config &config, const std::string &file, const PassphrasePrompt &prompt,
                             std::string &learned, std::vector<std::string> &tried, bool &in)
{
    const bool locked = needsPassphrase(file);
    const std::string &given = !config.passphrase.empty() ? config.passphrase : config.password;
    const char *secret = locked && !given.empty() ? given.c_str() : nullptr;
    std::optional<std::string> answer;
    // A key that needs a passphrase none was given for: asked, once per pool.
    if (locked && !secret && prompt && (answer = unwatched([&] {
                                            return prompt(PassphraseQuestion{file, config.user + "@" + config.host});
                                        })))
        secret = answer->c_str();
    if (locked && !secret) {
        tried.push_back(file + " (it needs a passphrase)");
        return {};
    }
    KeyHolder key;
    const int imported = ssh_pki_import_privkey_file(file.c_str(), secret, nullptr, nullptr, &key.key);
    if (imported != SSH_OK) {
        tried.push_back(file
                        + (imported == SSH_EOF ? " (cannot read it)"
                               : locked        ? " (a wrong passphrase)"
                                               : " (not a key libssh reads)"));
        return {};
    }
    const int rc = ssh_userauth_publickey(m_ssh, nullptr, key.key);
    if (rc == SSH_AUTH_ERROR) {
        m_broken = true;
        return Error(ErrorKind::Network,
                     std::string("the server closed the connection during the login: ") + ssh_get_error(m_ssh))
            .setTemporary(true);
    }
    in = rc == SSH_AUTH_SUCCESS;
    if (in && answer)
        learned = std::move(*answer);
    if (!in)
        tried.push_back(file);
    return {};
}

Status Session::login(const Config &config, const PassphrasePrompt &prompt, std::string &learned)
{
    const std::string &user = config.user;
    auto hardFailure = [&] {
        m_broken = true;
        return Error(ErrorKind::Network,
                     std::string("the server closed the connection during the login: ") + ssh_get_error(m_ssh))
            .setTemporary(true);
    };
    // "none" first: a server that needs no login says so; the others say what they take.
    const int none = ssh_userauth_none(m_ssh, nullptr);
    if (none == SSH_AUTH_SUCCESS)
        return {};
    if (none == SSH_AUTH_ERROR)
        return hardFailure();
    const int methods = ssh_userauth_list(m_ssh, nullptr);
    std::vector<std::string> tried;

    if (methods & SSH_AUTH_METHOD_PUBLICKEY) {
        if (!config.identitiesOnly && std::getenv("SSH_AUTH_SOCK")) {
            const int rc = ssh_userauth_agent(m_ssh, nullptr);
            if (rc == SSH_AUTH_SUCCESS)
                return {};
            if (rc == SSH_AUTH_ERROR && !ssh_is_connected(m_ssh))
                return hardFailure();
            tried.push_back("the agent's keys");
        }
        for (const auto &file : config.identityFiles) {
            if (!exists(file))
                continue;
            bool in = false;
            if (auto st = loginWithKey(config, file, prompt, learned, tried, in); !st)
                return st;
            if (in)
                return {};
        }
    }
    if (!config.password.empty() && (methods & SSH_AUTH_METHOD_PASSWORD)) {
        const int rc = ssh_userauth_password(m_ssh, nullptr, config.password.c_str());
        if (rc == SSH_AUTH_SUCCESS)
            return {};
        if (rc == SSH_AUTH_ERROR)
            return hardFailure();
        tried.push_back("a password");
    } else if (!config.password.empty() && (methods & SSH_AUTH_METHOD_INTERACTIVE)) {
        // Each question the server asks (PAM's "Password:") is answered with the password.
        int rc = ssh_userauth_kbdint(m_ssh, nullptr, nullptr);
        for (int round = 0; rc == SSH_AUTH_INFO && round < 8; ++round) {
            const int questions = ssh_userauth_kbdint_getnprompts(m_ssh);
            for (int i = 0; i < questions; ++i)
                ssh_userauth_kbdint_setanswer(m_ssh, unsigned(i), config.password.c_str());
            rc = ssh_userauth_kbdint(m_ssh, nullptr, nullptr);
        }
        if (rc == SSH_AUTH_SUCCESS)
            return {};
        if (rc == SSH_AUTH_ERROR)
            return hardFailure();
        tried.push_back("a password");
    }
    m_broken = true;
    std::string list;
    for (const auto &t : tried)
        list += (list.empty() ? "" : ", ") + t;
    const std::string &server = m_server;
    return Error(ErrorKind::PermissionDenied,
                 user + "@" + server + " refused the login (it takes " + methodNames(methods) + "; tried "
                     + (list.empty() ? "nothing: no key found and no password given" : list)
                     + "). Add a key to ssh-agent or ~/.ssh, or give the password (STRATA_SFTP_PASSWORD with "
                       "STRATA_SFTP_HOST naming "
                     + server + ", or save it with the connection)");
}

} // namespace strata::sftp
