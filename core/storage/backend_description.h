#pragma once

// What a backend says of itself: the storage its URIs name, how they are written, and every
// ?option they take. The command line's help and man page list the backends registered
// from these, never from a list of their own, and a factory checks a URI's options against
// its own list (checkOptions), so what is listed is what is accepted.
#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata {

struct BackendOption {
    std::string name;  // the URI's ?NAME= (a trailing '*' stands for any end: "tls-*")
    std::string value; // what it takes, for help ("URL", "SECONDS", "N"); empty for a flag
    std::string help;  // what it does, one sentence
};

// One field of the desktop's connection form for a backend. The form is the backend's: it
// names the fields, turns their answers into a URI (and a saved URI back into answers), and
// says what is wrong in a sentence; the dialog only draws them.
struct FormField {
    enum class Kind : std::uint8_t {
        Text,   // a line of text
        Secret, // a line of text never shown (a password)
        Flag,   // a check box; its answer is "1" or "" (its label is the box's text)
        Folder, // a local folder, with a Browse button
    };
    std::string name;  // the answer's key, and the widget's object name
    std::string label; // "&Bucket:", with its keyboard accelerator
    Kind kind = Kind::Text;
    std::string hint;    // the placeholder: an example, or what empty means
    std::string initial; // a new form's answer ("1": a flag checked)
    bool user = false;   // the user a saved connection keeps beside its URI
};
using FormAnswers = std::map<std::string, std::string, std::less<>>;

// What a filled form makes: the URI, and who logs in with what (kept apart from the URI:
// a saved connection keeps the user beside it and the secret in the keychain).
struct FormConnection {
    Uri uri;
    std::string user;
    std::string secret;
};

struct BackendDescription {
    std::string title;                  // "S3 object storage"
    std::vector<std::string> forms;     // how its URIs are written: "s3://BUCKET/KEY"
    std::string summary;                // one or two sentences for the man page
    std::vector<BackendOption> options; // every ?option its URIs take, and only those
    std::vector<FormField> form;        // the connection form; empty: not offered there
};

// Options that mean the same on every backend that takes them.
BackendOption timeoutOption();  // ?timeout=SECONDS: how long a request may move no byte
BackendOption insecureOption(); // ?insecure: a server certificate that cannot be verified is accepted

// What the backends' forms share: each gives the sentence the form shows, or fills `out`.
namespace form {
// A host name or address as typed (letters, digits, '_', '.', ':', '%', '-'), as a URI
// writes it ("[::1]" for an IPv6 literal); `problem` when empty or otherwise.
Result<std::string> host(const std::string &answer, const std::string &problem);
// A port (0 when empty: the protocol's own).
Result<int> port(const std::string &answer);
// A form's server fields (host, port, user) as "scheme://[user@]host[:port]/": the host
// checked as host() does (`hostProblem` when wrong), the port as port(), and a user with
// none of `forbidden` in it. The user, as typed, goes to `user`.
struct ServerFields {
    std::string_view host, port, user; // the fields' names
    std::string_view forbidden;        // characters a user name may not hold
    std::string hostProblem;
};
Result<Uri> server(const FormAnswers &answers, const std::string &scheme, const ServerFields &fields,
                   std::string &user);
// The timeout field every network form has: `name`, its answer a ?timeout= (see timeout()).
FormField timeoutField(std::string name);
// The answer `name`, when given, as ?timeout= (1 to 3600 seconds).
Status timeout(const FormAnswers &answers, std::string_view name, std::vector<Uri::QueryItem> &query);
struct FileOption {
    std::string_view field, option, what; // "ftpCa", "ca", "The CA file"
};
// The options of a server form (FTP's, SFTP's) set as `uri`'s query: a local file (the
// answer `file.field`, an absolute path, as ?OPTION=) when given, then the timeout (the
// answer `timeoutName`, see timeout()).
Status serverOptions(const FormAnswers &answers, Uri &uri, const FileOption &file, std::string_view timeoutName);
// An http(s)://host[:port][/path] URL, read as the backends read it; `what` names it.
Result<Uri> httpUrl(const std::string &answer, const std::string &what);
// An absolute local path, "~/" standing for the home folder; `what` names it.
Result<std::string> localPath(const std::string &answer, const std::string &what);
// The answer `name`, "" when absent.
std::string answer(const FormAnswers &answers, std::string_view name);
// A URI's host as a form shows it (an IPv6 literal without brackets), its port ("" for
// none) and its user (percent-decoded).
std::string hostOf(const Uri &uri);
std::string portOf(const Uri &uri);
std::string userOf(const Uri &uri);
} // namespace form

// Fine when every option of `uri` is one of `description`'s; else the error naming the
// unknown one and the known ones ("unknown s3:// option 'x' (known: endpoint, region)").
Status checkOptions(const Uri &uri, const BackendDescription &description);

} // namespace strata
