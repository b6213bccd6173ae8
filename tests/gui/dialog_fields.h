#pragma once

// Filling the connection dialog's fields and pressing its Test button, as a person would;
// shared by the GUI tests that drive the dialog against real servers.

#include "ui/connections/connection_dialog.h"

#include <QLineEdit>
#include <QPushButton>
#include <QTest>

namespace strata::gui_test {

inline void fill(ConnectionDialog &d, const QString &name, const QString &value)
{
    auto *edit = qobject_cast<QLineEdit *>(d.field(name));
    QVERIFY2(edit, qPrintable(name));
    edit->setText(value);
}

inline QPushButton *testButton(ConnectionDialog &d)
{
    for (auto *b : d.findChildren<QPushButton *>())
        if (b->text() == QLatin1String("&Test"))
            return b;
    return nullptr;
}

} // namespace strata::gui_test
