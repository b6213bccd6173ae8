#include "ui/browser/name_filter.h"

#include <algorithm>

namespace strata {

namespace {

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

} // namespace

NameFilter::NameFilter(const QString &text) : m_text(text)
{
    if (std::all_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x80; })) {
        m_ascii = text.toStdString();
        std::transform(m_ascii.begin(), m_ascii.end(), m_ascii.begin(), asciiLower);
    }
}

bool NameFilter::matches(std::string_view name) const
{
    if (m_text.isEmpty())
        return true;
    if (!m_ascii.empty())
        return std::search(name.begin(), name.end(), m_ascii.begin(), m_ascii.end(),
                           [](char a, char b) { return asciiLower(a) == b; })
            != name.end();
    return QString::fromUtf8(name.data(), qsizetype(name.size())).contains(m_text, Qt::CaseInsensitive);
}

} // namespace strata
