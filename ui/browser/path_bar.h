#pragma once

#include <QWidget>

class QHBoxLayout;
class QLineEdit;
class QStackedWidget;
class QToolButton;

namespace strata {

// The location of a pane: breadcrumbs (one button per folder, click to go there) that
// turn into an editable URI field on Ctrl+L or a click beside them.
class PathBar : public QWidget {
    Q_OBJECT
public:
    explicit PathBar(QWidget *parent = nullptr);

    // crumbs: (label, URI to open) from the root down to the current folder. A crumb's
    // tooltip shows its URI without secrets. When they do not fit, the leading crumbs go
    // into a "…" menu (the current folder always shows), so the bar takes what space there
    // is and leaves the filter box beside it usable at any width.
    void setLocation(const QString &displayUri, const QList<QPair<QString, QString>> &crumbs);
    void startEditing();
    bool editing() const;
    QLineEdit *editor() const { return m_edit; }
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void openRequested(const QString &uri);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void stopEditing();
    void fitCrumbs();

    QStackedWidget *m_stack;
    QWidget *m_crumbs;
    QHBoxLayout *m_crumbLayout;
    QToolButton *m_more; // the crumbs that do not fit, as a menu
    QList<QToolButton *> m_buttons;
    QLineEdit *m_edit;
    QString m_display;
};

} // namespace strata
