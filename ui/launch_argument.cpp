#include "ui/launch_argument.h"

#include "core/storage/uri.h"

namespace strata {

bool writtenAsUri(const QString &argument)
{
    return argument.contains(QLatin1String("://")) || argument.startsWith(QLatin1String("file:"));
}

std::optional<QString> localPathOf(const QString &argument)
{
    if (!writtenAsUri(argument))
        return std::nullopt;
    auto uri = Uri::parse(argument.toStdString());
    if (!uri || uri->scheme() != "file")
        return std::nullopt;
    return QString::fromStdString(uri->path());
}

} // namespace strata
