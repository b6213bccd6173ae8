#include "ui/transfers/transfer_dock.h"

#include "ui/common/allocation_map.h"
#include "ui/transfers/transfer_queue_model.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace strata {

namespace {

// Draws the Progress column as the style's progress bar.
class ProgressDelegate final : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(2, 3, -2, -3);
        bar.minimum = 0;
        bar.maximum = 1000;
        bar.progress = int(index.data(TransferQueueModel::FractionRole).toDouble() * 1000);
        bar.text = index.data().toString();
        bar.textVisible = true;
        bar.state = option.state | QStyle::State_Horizontal;
        QApplication::style()->drawControl(QStyle::CE_ProgressBar, &bar, painter);
    }
};

} // namespace

TransferDock::TransferDock(TransferQueueModel *model, QWidget *parent)
    : QDockWidget(tr("Transfers"), parent), m_model(model)
{
    setObjectName(QStringLiteral("transfers"));
    auto *body = new QWidget(this);
    auto *layout = new QHBoxLayout(body);
    layout->setContentsMargins(4, 2, 4, 4);

    m_view = new QTableView(body);
    m_view->setModel(model);
    m_view->setItemDelegateForColumn(TransferQueueModel::Progress, new ProgressDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->setShowGrid(false);
    m_view->setAlternatingRowColors(true);
    m_view->horizontalHeader()->setSectionResizeMode(TransferQueueModel::Transfer, QHeaderView::Stretch);
    m_view->horizontalHeader()->resizeSection(TransferQueueModel::Progress, 110);
    m_view->horizontalHeader()->resizeSection(TransferQueueModel::Bytes, 140);
    m_view->horizontalHeader()->resizeSection(TransferQueueModel::Rate, 80);
    m_view->horizontalHeader()->resizeSection(TransferQueueModel::Eta, 70);
    m_view->horizontalHeader()->resizeSection(TransferQueueModel::State, 80);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 10);
    layout->addWidget(m_view, 1);

    auto *side = new QVBoxLayout;
    m_pause = new QPushButton(tr("&Pause"), body);
    m_resume = new QPushButton(tr("&Resume / Retry"), body);
    m_cancel = new QPushButton(tr("&Cancel"), body);
    m_clear = new QPushButton(tr("C&lear finished"), body);
    for (auto *b : {m_pause, m_resume, m_cancel, m_clear})
        side->addWidget(b);
    side->addStretch();
    layout->addLayout(side);

    m_side = new QTabWidget(body);
    m_side->setMaximumWidth(380);
    m_failures = new QPlainTextEdit(m_side);
    m_failures->setReadOnly(true);
    m_failures->setPlaceholderText(tr("Why files failed shows here for the selected transfer."));
    m_side->addTab(m_failures, tr("Problems"));
    m_map = new AllocationMap(m_side);
    m_map->setMinimumSize(200, 100);
    m_side->addTab(m_map, tr("Image map"));
    layout->addWidget(m_side);
    setWidget(body);

    auto selected = [this] { return m_view->selectionModel()->currentIndex(); };
    connect(m_pause, &QPushButton::clicked, this, [=, this] {
        if (auto st = m_model->pause(selected()); !st)
            report(QString::fromStdString(st.error().message()));
    });
    connect(m_resume, &QPushButton::clicked, this, [=, this] {
        if (auto st = m_model->resume(selected()); !st)
            report(QString::fromStdString(st.error().message()));
    });
    connect(m_cancel, &QPushButton::clicked, this, [=, this] {
        if (auto st = m_model->cancel(selected()); !st)
            report(QString::fromStdString(st.error().message()));
    });
    connect(m_clear, &QPushButton::clicked, m_model, &TransferQueueModel::clearFinished);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        updateButtons();
        showFailures();
        const QModelIndex current = m_view->selectionModel()->currentIndex();
        Q_EMIT currentJobChanged(current.isValid() ? current.data(TransferQueueModel::JobIdRole).toString()
                                                   : QString());
    });
    connect(m_model, &TransferQueueModel::jobFinished, this, &TransferDock::showFailures);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this] {
        updateButtons();
        const QModelIndex current = m_view->selectionModel()->currentIndex();
        if (current.isValid())
            m_map->setProgress(current.data(TransferQueueModel::FractionRole).toDouble());
    });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &TransferDock::updateButtons);
    updateButtons();
}

void TransferDock::report(const QString &failure)
{
    if (!failure.isEmpty())
        m_failures->setPlainText(failure);
}

void TransferDock::updateButtons()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    const auto state = current.isValid()
        ? std::optional(JobState(current.data(TransferQueueModel::JobStateRole).toInt()))
        : std::nullopt;
    m_pause->setEnabled(state
                        && (*state == JobState::Queued || *state == JobState::Running || *state == JobState::Planning));
    m_resume->setEnabled(state && (*state == JobState::Paused || *state == JobState::Failed));
    m_cancel->setEnabled(state && !isFinal(*state));
}

// Only on a change of job or when one ends: a report copy is not for every repaint.
void TransferDock::showFailures()
{
    m_failures->setPlainText(m_model->failures(m_view->selectionModel()->currentIndex()).join(QLatin1Char('\n')));
}

} // namespace strata
