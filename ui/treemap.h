#pragma once

#include <QRectF>

#include <vector>

namespace strata {

// Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles for positive
// weights given in descending order, filling `area` exactly (their areas are the weights'
// shares of it) with aspect ratios kept near 1. Zero weights get empty rectangles.
std::vector<QRectF> squarify(const std::vector<double> &descendingWeights, const QRectF &area);

} // namespace strata
