#pragma once

#include "core/storage/registry.h"
#include "core/transfer/transfer_queue.h"
#include "ui/connections/connection_dialog.h"
#include "ui/connections/connection_profile.h"

#include <QMainWindow>

#include <memory>
#include <stop_token>

class QTabWidget;

namespace strata {

class BenchPage;
class BrowserPane;
class ConnectionSidebar;
class FileActions;
class SecretStore;
class TransferDock;
class TransferQueueModel;
class TransferStarter;
class UsageView;
struct SyncAction;

// The desktop app: saved connections at the left, two browser panes side by side, the
// transfer queue at the bottom. Menus and the toolbar carry the standard shortcuts (F5
// refresh, F2 rename, Del delete, Ctrl+L location, Ctrl+N new connection, F7 new folder,
// F6 copy / Shift+F6 move to the other pane, Enter open, Backspace up).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(Registry &registry, ConnectionDialog::RegistryMaker makeRegistry, QueueOptions queueOptions,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    BrowserPane *pane(int side) const { return side == 0 ? m_left : m_right; }
    BrowserPane *activePane() const { return m_active; }
    TransferQueueModel *queue() const { return m_queue; }
    TransferStarter *starter() const { return m_starter; }
    FileActions *actions() const { return m_actions; }
    BenchPage *benchPage() const { return m_bench; }
    TransferDock *dock() const { return m_dock; }
    ConnectionSidebar *sidebar() const { return m_sidebar; }
    void openProfile(const ConnectionProfile &profile, BrowserPane *pane = nullptr);
    // Pages chosen from outside too: the desktop entry's actions and `strata open`.
    void showBenchmarks();
    void showUsage(const Location &location);
    // The Usage page scanning a typed location (opened off the GUI thread).
    void scanUsage(const QString &uri);
    // Compares the panes' folders off the GUI thread (as strata diff), then marks both
    // panes' rows and selects what either side would copy to the other; with
    // `synchronize`, then opens the checklist of a sync from the active pane to the other.
    // `byContent` reads files of equal size through (checksums) instead of trusting times.
    void compareFolders(bool synchronize = false, bool byContent = false);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void setActive(BrowserPane *pane);
    void editConnection(const std::optional<ConnectionProfile> &existing);
    void saveConnection(const ConnectionProfile &profile, const QString &secret);
    void removeConnection(const ConnectionProfile &profile);
    void toOtherPane(bool move);
    void showJobImage(const QString &jobId);
    void runSync(const Location &source, const Location &target, const std::vector<SyncAction> &actions);
    void refreshPanesShowing(const QString &folderUri);
    void showMessage(const QString &message, bool error);
    void updateStatus();

    Registry &m_registry;
    ConnectionDialog::RegistryMaker m_makeRegistry;
    QList<ConnectionProfile> m_profiles;
    SecretStore *m_secrets;
    ConnectionSidebar *m_sidebar;
    BrowserPane *m_left, *m_right, *m_active;
    TransferQueueModel *m_queue;
    TransferDock *m_dock;
    TransferStarter *m_starter;
    FileActions *m_actions;
    BenchPage *m_bench;
    UsageView *m_usage;
    QTabWidget *m_pages;
    std::shared_ptr<std::stop_source> m_comparing; // the comparison whose answer is wanted
};

} // namespace strata
