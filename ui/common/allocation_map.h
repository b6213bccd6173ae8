#pragma once

#include "core/io/extent.h"
#include "core/storage/operator.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {

// How much of an image is data, zeros and holes.
struct AllocationTotals {
    std::uint64_t data = 0, zero = 0, hole = 0;
    std::uint64_t total() const { return data + zero + hole; }
    double dataPercent() const { return total() ? 100.0 * double(data) / double(total()) : 0.0; }
};
AllocationTotals allocationTotals(const std::vector<Extent> &extents);

// For `cells` equal slices of [0, size): the share (0..1) of each slice that is data,
// and the share that is zeros (the rest is holes).
struct CellShare {
    double data = 0, zero = 0;
};
std::vector<CellShare> allocationCells(const std::vector<Extent> &extents, std::uint64_t size, int cells);

// A picture of where an image's data is: a grid of cells across the image, each coloured
// by how much of its slice is data, zeros or holes, with a legend and the totals. The
// extent map is read off the GUI thread (load()); setExtents() draws a known one.
class AllocationMap : public QWidget {
    Q_OBJECT
public:
    explicit AllocationMap(QWidget *parent = nullptr);

    void load(std::shared_ptr<Operator> op, std::string path);
    void setExtents(std::vector<Extent> extents);
    const AllocationTotals &totals() const { return m_totals; }
    // During a copy: the share of the image done, drawn over the cells (nullopt: none).
    void setProgress(std::optional<double> fraction);
    void clear();
    QString summary() const;
    QSize sizeHint() const override { return {520, 220}; }

Q_SIGNALS:
    void loaded(); // the map (or the reason there is none) is in

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<Extent> m_extents;
    std::uint64_t m_size = 0;
    AllocationTotals m_totals;
    QString m_error;
    bool m_loading = false;
    std::optional<double> m_progress;
    int m_generation = 0; // a load answered after clear() or another load is dropped
};

} // namespace strata
