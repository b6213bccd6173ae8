#pragma once

#include <QString>

#include <string>
#include <string_view>

namespace strata {

// What the filter box asks: the names that contain its text, without regard to case. ASCII
// text is matched on the UTF-8 names as they are (no QString made per name): a million
// names take a few milliseconds. Any thread.
class NameFilter {
public:
    NameFilter() = default;
    explicit NameFilter(const QString &text);
    bool active() const { return !m_text.isEmpty(); }
    const QString &text() const { return m_text; }
    bool matches(std::string_view name) const;
    bool operator==(const NameFilter &other) const { return m_text == other.m_text; }

private:
    QString m_text;
    std::string m_ascii; // lower case; empty unless the text is ASCII
};

} // namespace strata
