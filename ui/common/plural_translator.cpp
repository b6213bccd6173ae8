#include "ui/common/plural_translator.h"

#include <cstring>

namespace strata {

QString PluralTranslator::translate(const char *, const char *sourceText, const char *, int n) const
{
    if (n < 0 || !sourceText || !std::strstr(sourceText, "(s)"))
        return {}; // untouched: Qt uses the source text
    QString text = QString::fromUtf8(sourceText);
    text.replace(QStringLiteral("y(s)"), n == 1 ? QStringLiteral("y") : QStringLiteral("ies")); // entry, entries
    text.replace(QStringLiteral("(s)"), n == 1 ? QString() : QStringLiteral("s"));
    return text;
}

} // namespace strata
