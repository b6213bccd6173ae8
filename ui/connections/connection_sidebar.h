#pragma once

#include "ui/connections/connection_profile.h"

#include <QWidget>

class QListWidget;
class QListWidgetItem;

namespace strata {

// The bookmarks at the left: the home folder, the demo store and the saved connections.
// A click opens one in the active pane; editing and removing go through the window.
class ConnectionSidebar : public QWidget {
    Q_OBJECT
public:
    explicit ConnectionSidebar(QWidget *parent = nullptr);

    void setProfiles(const QList<ConnectionProfile> &saved);
    QListWidget *list() const { return m_list; }

Q_SIGNALS:
    void openRequested(const strata::ConnectionProfile &profile);
    void addRequested();
    void editRequested(const strata::ConnectionProfile &profile);
    void removeRequested(const strata::ConnectionProfile &profile);

private:
    std::optional<ConnectionProfile> profileOf(const QListWidgetItem *item) const;
    void showMenu(const QPoint &pos);

    QListWidget *m_list;
    QList<ConnectionProfile> m_builtin, m_saved;
};

} // namespace strata
