#pragma once

#include <QString>

#include <optional>

namespace strata {

// Whether an argument of `strata open` is written as a URI ("scheme://…", or "file:" as
// file managers pass them) rather than as a path.
bool writtenAsUri(const QString &argument);
// The local path a file URI names, read as the backends read URIs (Uri, not QUrl: QUrl
// takes a '#' in a name for a fragment and cuts the name there); nullopt for anything else.
std::optional<QString> localPathOf(const QString &argument);

} // namespace strata
