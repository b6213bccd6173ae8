#pragma once

// What a backend says of itself: the storage its URIs name, how they are written, and every
// ?option they take. The command line's help and man page list the backends registered
// from these, never from a list of their own, and a factory checks a URI's options against
// its own list (checkOptions), so what is listed is what is accepted.
#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <string>
#include <vector>

namespace strata {

struct BackendOption {
    std::string name;  // the URI's ?NAME= (a trailing '*' stands for any end: "tls-*")
    std::string value; // what it takes, for help ("URL", "SECONDS", "N"); empty for a flag
    std::string help;  // what it does, one sentence
};

struct BackendDescription {
    std::string title;                  // "S3 object storage"
    std::vector<std::string> forms;     // how its URIs are written: "s3://BUCKET/KEY"
    std::string summary;                // one or two sentences for the man page
    std::vector<BackendOption> options; // every ?option its URIs take, and only those
};

// Options that mean the same on every backend that takes them.
BackendOption timeoutOption();  // ?timeout=SECONDS: how long a request may move no byte
BackendOption insecureOption(); // ?insecure: a server certificate that cannot be verified is accepted

// Fine when every option of `uri` is one of `description`'s; else the error naming the
// unknown one and the known ones ("unknown s3:// option 'x' (known: endpoint, region)").
Status checkOptions(const Uri &uri, const BackendDescription &description);

} // namespace strata
