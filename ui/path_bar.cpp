#include "ui/path_bar.h"

#include "ui/entry_format.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QStackedWidget>
#include <QToolButton>

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
    while (auto *item = m_crumbLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (qsizetype i = 0; i < crumbs.size(); ++i) {
        auto *button = new QToolButton(m_crumbs);
        button->setText(literalText(crumbs[i].first) + (i + 1 < crumbs.size() ? QStringLiteral("  ›") : QString()));
        button->setAutoRaise(true);
        button->setToolTip(crumbs[i].second);
        if (i + 1 == crumbs.size()) {
            QFont bold = button->font();
            bold.setBold(true);
            button->setFont(bold);
        }
        const QString uri = crumbs[i].second;
        connect(button, &QToolButton::clicked, this, [this, uri] { Q_EMIT openRequested(uri); });
        m_crumbLayout->addWidget(button);
    }
    m_crumbLayout->addStretch();
    if (!editing())
        m_edit->setText(displayUri);
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
