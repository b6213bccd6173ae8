#pragma once

#include "core/storage/operator.h"

#include <QDialog>

#include <memory>
#include <string>

class QFormLayout;
class QLabel;

namespace strata {

// Everything the storage says about one entry: size, allocation, times, version tag,
// hash, mode; for files with an allocation map, how much is data, zeros and holes.
// Fetched off the GUI thread; the dialog fills in as answers arrive.
class PropertiesDialog : public QDialog {
    Q_OBJECT
public:
    PropertiesDialog(std::shared_ptr<Operator> op, std::string path, QWidget *parent = nullptr);

Q_SIGNALS:
    void loaded(); // for tests: every answer is in

private:
    void addRow(const QString &label, const QString &value);

    QFormLayout *m_form;
    QLabel *m_status;
};

} // namespace strata
