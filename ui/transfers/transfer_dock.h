#pragma once

#include <QDockWidget>

class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTabWidget;

namespace strata {

class AllocationMap;
class TransferQueueModel;

// The transfer queue at the bottom of the window: one row per job with a progress bar,
// pause / resume / cancel / retry for the selected job, the reasons of failed files,
// and "Clear finished".
class TransferDock : public QDockWidget {
    Q_OBJECT
public:
    TransferDock(TransferQueueModel *model, QWidget *parent = nullptr);
    QTableView *view() const { return m_view; }
    // The allocation map of the selected job's image, while one is copied.
    AllocationMap *imageMap() const { return m_map; }

Q_SIGNALS:
    void currentJobChanged(const QString &jobId); // empty: none selected

private:
    void updateButtons();
    void showFailures();
    void report(const QString &failure);

    TransferQueueModel *m_model;
    QTableView *m_view;
    QPushButton *m_pause, *m_resume, *m_cancel, *m_clear;
    QPlainTextEdit *m_failures;
    QTabWidget *m_side;
    AllocationMap *m_map;
};

} // namespace strata
