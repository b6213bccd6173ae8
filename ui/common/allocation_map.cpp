#include "ui/common/allocation_map.h"

#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QPainter>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace strata {

namespace {

const QColor kData(0x2f, 0x6f, 0xb8), kZero(0x9c, 0xc9, 0x8f), kHole(0xf2, 0xf2, 0xf2);

struct Loaded {
    std::vector<Extent> extents;
    QString error;
};

QColor mix(const CellShare &share)
{
    const double hole = std::max(0.0, 1.0 - share.data - share.zero);
    auto channel = [&](int d, int z, int h) { return int(std::lround(d * share.data + z * share.zero + h * hole)); };
    return QColor(channel(kData.red(), kZero.red(), kHole.red()), channel(kData.green(), kZero.green(), kHole.green()),
                  channel(kData.blue(), kZero.blue(), kHole.blue()));
}

} // namespace

AllocationTotals allocationTotals(const std::vector<Extent> &extents)
{
    AllocationTotals t;
    for (const auto &e : extents)
        (e.kind == ExtentKind::Data ? t.data : e.kind == ExtentKind::Zero ? t.zero : t.hole) += e.length;
    return t;
}

std::vector<CellShare> allocationCells(const std::vector<Extent> &extents, std::uint64_t size, int cells)
{
    std::vector<CellShare> out(std::size_t(std::max(0, cells)));
    if (size == 0 || cells <= 0)
        return out;
    const double per = double(size) / cells;
    // Each extent adds its overlap with every cell it spans: linear in extents plus cells.
    for (const auto &e : extents) {
        const double begin = double(e.offset), end = double(e.offset + e.length);
        for (int c = std::max(0, int(begin / per)); c < cells && c * per < end; ++c) {
            const double overlap = std::min(end, (c + 1) * per) - std::max(begin, c * per);
            if (overlap <= 0)
                continue;
            if (e.kind == ExtentKind::Data)
                out[std::size_t(c)].data += overlap / per;
            else if (e.kind == ExtentKind::Zero)
                out[std::size_t(c)].zero += overlap / per;
        }
    }
    return out;
}

AllocationMap::AllocationMap(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(320, 160);
}

void AllocationMap::setProgress(std::optional<double> fraction)
{
    m_progress = fraction;
    update();
}

void AllocationMap::clear()
{
    ++m_generation;
    m_loading = false;
    m_error.clear();
    m_progress.reset();
    setExtents({});
}

void AllocationMap::load(std::shared_ptr<Operator> op, std::string path)
{
    m_loading = true;
    const int generation = ++m_generation;
    update();
    QtConcurrent::run(ioPool(), [op, path] {
        Loaded out;
        auto map = op->extents(path);
        if (map)
            out.extents = std::move(*map);
        else
            out.error = QString::fromStdString(map.error().message());
        return out;
    }).then(this, [this, generation](const Loaded &result) {
        if (generation != m_generation)
            return;
        m_loading = false;
        m_error = result.error;
        setExtents(result.extents);
        Q_EMIT loaded();
    });
}

void AllocationMap::setExtents(std::vector<Extent> extents)
{
    m_extents = std::move(extents);
    m_size = 0;
    for (const auto &e : m_extents)
        m_size = std::max(m_size, e.offset + e.length);
    m_totals = allocationTotals(m_extents);
    setToolTip(summary());
    update();
}

QString AllocationMap::summary() const
{
    if (!m_error.isEmpty())
        return m_error;
    return tr("%1 of %2 is data (%3%), %4 zeros, %5 holes")
        .arg(sizeString(m_totals.data), sizeString(m_totals.total()))
        .arg(m_totals.dataPercent(), 0, 'f', 1)
        .arg(sizeString(m_totals.zero), sizeString(m_totals.hole));
}

void AllocationMap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const int legend = fontMetrics().height() * 2 + 8;
    const QRect grid = rect().adjusted(6, 6, -6, -legend);
    if (m_loading || !m_error.isEmpty() || m_size == 0) {
        p.drawText(grid, Qt::AlignCenter | Qt::TextWordWrap,
                   m_loading                ? tr("Reading the allocation map…")
                       : !m_error.isEmpty() ? m_error
                                            : tr("Empty image"));
        return;
    }
    // Square-ish cells filling the area; each cell is an equal slice of the image.
    constexpr int cell = 8;
    const int columns = std::max(1, grid.width() / cell), rows = std::max(1, grid.height() / cell);
    const auto shares = allocationCells(m_extents, m_size, columns * rows);
    // During a copy, the cells done so far are outlined.
    const int done = m_progress ? int(*m_progress * columns * rows) : 0;
    for (int i = 0; i < columns * rows; ++i) {
        const QRect r(grid.left() + (i % columns) * cell, grid.top() + (i / columns) * cell, cell - 1, cell - 1);
        p.fillRect(r, mix(shares[std::size_t(i)]));
        if (i < done) {
            p.setPen(QColor(0x1d, 0x6b, 0x2a));
            p.drawRect(r.adjusted(0, 0, -1, -1));
        }
    }
    // Legend and totals.
    int x = grid.left();
    const int y = grid.bottom() + 6;
    for (const auto &[color, label] :
         {std::pair(kData, tr("data")), std::pair(kZero, tr("zeros")), std::pair(kHole, tr("holes"))}) {
        p.fillRect(QRect(x, y + 2, 10, 10), color);
        p.setPen(palette().text().color());
        p.drawRect(QRect(x, y + 2, 10, 10));
        p.drawText(QPoint(x + 14, y + fontMetrics().ascent()), label);
        x += 14 + fontMetrics().horizontalAdvance(label) + 16;
    }
    QString line = summary() + tr(" — one cell is %1").arg(sizeString(m_size / std::uint64_t(columns * rows)));
    if (m_progress)
        line += tr(" — %1% copied (outlined)").arg(int(*m_progress * 100));
    p.drawText(QRect(grid.left(), y + fontMetrics().height(), grid.width(), fontMetrics().height() + 4), Qt::AlignLeft,
               fontMetrics().elidedText(line, Qt::ElideRight, grid.width()));
}

} // namespace strata
