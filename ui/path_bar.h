#pragma once

#include <QWidget>

class QHBoxLayout;
class QLineEdit;
class QStackedWidget;

namespace strata {

// The location of a pane: breadcrumbs (one button per folder, click to go there) that
// turn into an editable URI field on Ctrl+L or a click beside them.
class PathBar : public QWidget {
    Q_OBJECT
public:
    explicit PathBar(QWidget *parent = nullptr);

    // crumbs: (label, URI to open) from the root down to the current folder.
    void setLocation(const QString &displayUri, const QList<QPair<QString, QString>> &crumbs);
    void startEditing();
    bool editing() const;
    QLineEdit *editor() const { return m_edit; }

Q_SIGNALS:
    void openRequested(const QString &uri);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void stopEditing();

    QStackedWidget *m_stack;
    QWidget *m_crumbs;
    QHBoxLayout *m_crumbLayout;
    QLineEdit *m_edit;
    QString m_display;
};

} // namespace strata
