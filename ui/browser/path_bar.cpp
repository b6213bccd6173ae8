#include "ui/browser/path_bar.h"

#include "ui/common/entry_format.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QStackedWidget>
#include <QToolButton>

#include <algorithm>

namespace strata {

PathBar::PathBar(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    m_crumbs = new QWidget(m_stack);
    m_crumbLayout = new QHBoxLayout(m_crumbs);
    m_crumbLayout->setContentsMargins(2, 0, 2, 0);
    m_crumbLayout->setSpacing(0);
    m_more = new QToolButton(m_crumbs);
    m_more->setObjectName(QStringLiteral("hiddenCrumbs"));
    m_more->setText(QStringLiteral("…"));
    m_more->setAutoRaise(true);
    m_more->setPopupMode(QToolButton::InstantPopup);
    m_more->setToolTip(tr("Folders above"));
    m_more->setMenu(new QMenu(m_more));
    m_more->hide();
    m_crumbLayout->addWidget(m_more);
    m_stack->addWidget(m_crumbs);

    m_edit = new QLineEdit(m_stack);
    m_edit->setPlaceholderText(tr("A folder or URI: /home, memory://demo/, s3://bucket/…"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_stack->addWidget(m_edit);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        const QString text = m_edit->text().trimmed();
        stopEditing();
        if (!text.isEmpty())
            Q_EMIT openRequested(text);
    });
    setFixedHeight(m_edit->sizeHint().height());
}

void PathBar::setLocation(const QString &displayUri, const QList<QPair<QString, QString>> &crumbs)
{
    m_display = displayUri;
    qDeleteAll(m_buttons);
    m_buttons.clear();
    while (auto *item = m_crumbLayout->takeAt(0))
        delete item; // the stretch; the "…" button is added again below
    m_crumbLayout->addWidget(m_more);
    m_more->menu()->clear();
    for (qsizetype i = 0; i < crumbs.size(); ++i) {
        auto *button = new QToolButton(m_crumbs);
        // A very long name is elided in the middle; the tooltip and the menu show it whole.
        const QString label = button->fontMetrics().elidedText(crumbs[i].first, Qt::ElideMiddle,
                                                               button->fontMetrics().averageCharWidth() * 40);
        button->setText(literalText(label) + (i + 1 < crumbs.size() ? QStringLiteral("  ›") : QString()));
        button->setProperty("label", button->text());
        button->setAutoRaise(true);
        button->setToolTip(redactedUri(crumbs[i].second));
        button->setProperty("crumb", crumbs[i].first);
        if (i + 1 == crumbs.size()) {
            QFont bold = button->font();
            bold.setBold(true);
            button->setFont(bold);
        }
        const QString uri = crumbs[i].second;
        connect(button, &QToolButton::clicked, this, [this, uri] { Q_EMIT openRequested(uri); });
        m_crumbLayout->addWidget(button);
        m_buttons << button;
    }
    m_crumbLayout->addStretch();
    fitCrumbs();
    if (!editing())
        m_edit->setText(displayUri);
}

QSize PathBar::minimumSizeHint() const
{
    // Room for "…" and a few letters of the current folder; the rest is the window's.
    return {fontMetrics().averageCharWidth() * 12, m_edit->sizeHint().height()};
}

void PathBar::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitCrumbs();
}

// Shows as many crumbs as fit, from the current folder up; the others go into the menu.
void PathBar::fitCrumbs()
{
    if (m_buttons.isEmpty())
        return;
    const QMargins margins = m_crumbLayout->contentsMargins();
    const int room = width() - margins.left() - margins.right();
    int used = 0;
    qsizetype firstShown = m_buttons.size();
    while (firstShown > 0) {
        const int w = m_buttons[firstShown - 1]->sizeHint().width();
        // The "…" button needs room too once anything is hidden.
        const int reserve = firstShown > 1 ? m_more->sizeHint().width() : 0;
        if (firstShown < m_buttons.size() && used + w + reserve > room)
            break;
        used += w;
        --firstShown;
    }
    QMenu *menu = m_more->menu();
    menu->clear();
    for (qsizetype i = 0; i < m_buttons.size(); ++i) {
        QToolButton *button = m_buttons[i];
        button->setVisible(i >= firstShown);
        if (i < firstShown) {
            QAction *action = menu->addAction(literalText(button->property("crumb").toString()));
            action->setToolTip(button->toolTip());
            connect(action, &QAction::triggered, button, &QToolButton::click);
        }
    }
    m_more->setVisible(firstShown > 0);
    // The current folder alone may still be wider than the bar: its name is elided further.
    QToolButton *current = m_buttons.back();
    current->setText(current->property("label").toString());
    const int left = room - (firstShown > 0 ? m_more->sizeHint().width() : 0);
    const int over = current->sizeHint().width() - left;
    if (over > 0) {
        const QString label = current->property("crumb").toString();
        const int textWidth = current->fontMetrics().horizontalAdvance(label);
        current->setText(
            literalText(current->fontMetrics().elidedText(label, Qt::ElideMiddle, std::max(textWidth - over, 0))));
    }
}

void PathBar::startEditing()
{
    m_edit->setText(m_display);
    m_stack->setCurrentWidget(m_edit);
    m_edit->setFocus();
    m_edit->selectAll();
}

bool PathBar::editing() const
{
    return m_stack->currentWidget() == m_edit;
}

void PathBar::stopEditing()
{
    m_stack->setCurrentWidget(m_crumbs);
}

void PathBar::mousePressEvent(QMouseEvent *event)
{
    startEditing(); // a click beside the crumbs edits the location
    QWidget::mousePressEvent(event);
}

bool PathBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_edit) {
        if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape) {
            stopEditing();
            return true;
        }
        if (event->type() == QEvent::FocusOut)
            stopEditing();
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace strata
