#pragma once

#include <QTranslator>

namespace strata {

// English plurals without a translation file: in a source text with a count (%n),
// "item(s)" reads "item" for one and "items" otherwise ("1 item", "3 items").
class PluralTranslator : public QTranslator {
    Q_OBJECT
public:
    using QTranslator::QTranslator;
    QString translate(const char *context, const char *sourceText, const char *disambiguation, int n) const override;
    bool isEmpty() const override { return false; }
};

} // namespace strata
