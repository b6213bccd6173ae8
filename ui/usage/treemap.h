#pragma once

#include "core/walk/scan.h"

#include <QColor>
#include <QImage>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace strata {

// Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles for positive
// weights given in descending order, filling `area` exactly (their areas are the weights'
// shares of it) with aspect ratios kept near 1. Zero weights get empty rectangles.
std::vector<QRectF> squarify(const std::vector<double> &descendingWeights, const QRectF &area);

struct UsageNode;

// What a file is, by its extension, for the treemap's colours and its legend.
enum class FileCategory : std::uint8_t { Documents, Images, Video, Audio, Archives, Code, DiskImages, Other };
inline constexpr int kFileCategories = 8;
FileCategory categoryOf(QStringView fileName);
QString categoryName(FileCategory category);
QColor categoryColor(FileCategory category);
// What an object store keeps besides the objects (older versions, unfinished uploads): its
// own colour and name in the map and the legend.
QColor keptColor(Kept kept);
QString keptName(Kept kept);
// The extensions (lower case, no dot) of a category. Defaults, unless the settings hold
// "usage/extensions/<category name in lower case>" as a comma-separated list.
QStringList categoryExtensions(FileCategory category);
// Reads the category lists again (after the settings changed).
void reloadFileCategories();

// One tile of a nested treemap: a file, or a folder drawn as one tile because it is too
// small to show what is inside, or a folder's frame (its children are tiles inside it).
struct TreemapTile {
    QRectF rect;
    const UsageNode *node = nullptr;
    int depth = 0;     // 0: a child of the node laid out
    bool leaf = false; // drawn as a tile (else a frame around its children)
    // A frame filled in the folders' grey: children smaller than a pixel, left out of the
    // layout, are drawn as part of it.
    bool filled = false;
    // The cushion's surface z = s[0]x² + s[1]x + s[2]y² + s[3]y, built up by every level
    // around the tile (van Wijk and van de Wetering, 1999).
    std::array<float, 4> cushion{};
};

// Lays out everything below `root` inside `area`: each folder's children squarified in the
// folder's rectangle (inset to leave its frame visible). A folder is opened when its shorter
// side is at least 4 × `minSide` pixels; a child smaller than a pixel either way is left to
// its folder's tile (so a million tiny files cost no more tiles than there are pixels).
std::vector<TreemapTile> layoutTreemap(const UsageNode &root, const QRectF &area, double minSide = 3.0);

// A leaf's colour, instead of its category's (the changes since a saved scan).
using TileColoring = std::function<QRgb(const UsageNode &)>;

// Draws the leaves of a layout into an image of `size`, with cushion shading and the
// colours of their categories (folders drawn as one tile in grey), or of `coloring`.
QImage renderTreemap(const std::vector<TreemapTile> &tiles, const QSize &size, const TileColoring &coloring = {});

} // namespace strata
