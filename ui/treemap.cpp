#include "ui/treemap.h"

#include <algorithm>
#include <numeric>

namespace strata {

namespace {

// The worst aspect ratio of a row of areas laid along a side of length `side`.
double worst(double sum, double smallest, double largest, double side)
{
    const double s2 = side * side, sum2 = sum * sum;
    return std::max(s2 * largest / sum2, sum2 / (s2 * smallest));
}

} // namespace

std::vector<QRectF> squarify(const std::vector<double> &weights, const QRectF &area)
{
    std::vector<QRectF> out(weights.size());
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (total <= 0 || area.isEmpty())
        return out;
    const double scale = area.width() * area.height() / total; // weight -> area
    QRectF free = area;
    std::size_t i = 0;
    while (i < weights.size() && weights[i] > 0) {
        const bool horizontal = free.width() >= free.height(); // the row goes along the shorter side
        const double side = horizontal ? free.height() : free.width();
        // Grow the row while its worst aspect ratio improves.
        std::size_t end = i + 1;
        double sum = weights[i] * scale;
        while (end < weights.size() && weights[end] > 0) {
            const double next = weights[end] * scale;
            if (worst(sum + next, next, weights[i] * scale, side)
                > worst(sum, weights[end - 1] * scale, weights[i] * scale, side))
                break;
            sum += next;
            ++end;
        }
        // The last row takes the whole remaining area (no rounding gaps).
        const bool last = end >= weights.size() || weights[end] <= 0;
        const double thickness = last ? (horizontal ? free.width() : free.height()) : sum / side;
        double at = horizontal ? free.top() : free.left();
        for (std::size_t k = i; k < end; ++k) {
            const double length =
                (k + 1 == end) ? (horizontal ? free.bottom() : free.right()) - at : weights[k] * scale / thickness;
            out[k] =
                horizontal ? QRectF(free.left(), at, thickness, length) : QRectF(at, free.top(), length, thickness);
            at += length;
        }
        if (horizontal)
            free.setLeft(free.left() + thickness);
        else
            free.setTop(free.top() + thickness);
        i = end;
    }
    return out;
}

} // namespace strata
