#include "ui/usage/treemap.h"

#include "ui/usage/usage_tree.h"

#include <QCoreApplication>
#include <QHash>
#include <QObject>
#include <QSettings>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
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

namespace {

constexpr std::array<const char *, kFileCategories> kCategoryKeys = {"documents", "images", "video",       "audio",
                                                                     "archives",  "code",   "disk-images", "other"};

QStringList defaultExtensions(FileCategory category)
{
    const char *list = "";
    switch (category) {
    case FileCategory::Documents:
        list = "pdf doc docx odt rtf txt md tex xls xlsx ods ppt pptx odp csv epub djvu";
        break;
    case FileCategory::Images:
        list = "jpg jpeg png gif bmp tif tiff webp svg heic heif raw cr2 nef dng psd xcf ico avif";
        break;
    case FileCategory::Video: list = "mp4 mkv avi mov wmv webm m4v mpg mpeg flv 3gp"; break;
    case FileCategory::Audio: list = "mp3 flac wav ogg opus m4a aac wma aiff mid"; break;
    case FileCategory::Archives: list = "zip tar gz tgz bz2 xz zst 7z rar deb rpm jar cab lz4"; break;
    case FileCategory::Code:
        list = "c h cpp hpp cc cxx py js ts java go rs rb sh pl php cs kt html css json xml yml yaml toml cmake o so a "
               "class pyc qml ui sql";
        break;
    case FileCategory::DiskImages: list = "iso img qcow2 qcow vmdk vdi vhd vhdx dmg ova"; break;
    case FileCategory::Other: break;
    }
    return QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

using CategoryTable = QHash<QString, FileCategory>;

std::shared_ptr<const CategoryTable> buildTable()
{
    auto table = std::make_shared<CategoryTable>();
    // Later categories do not take an extension an earlier one has.
    for (int c = 0; c < kFileCategories - 1; ++c)
        for (const QString &ext : categoryExtensions(FileCategory(c)))
            table->insert(ext, FileCategory(c));
    return table;
}

std::shared_ptr<const CategoryTable> &tableSlot()
{
    static std::shared_ptr<const CategoryTable> table = buildTable();
    return table;
}

std::shared_ptr<const CategoryTable> currentTable()
{
    return std::atomic_load(&tableSlot());
}

} // namespace

QStringList categoryExtensions(FileCategory category)
{
    const QString key = QStringLiteral("usage/extensions/") + QLatin1String(kCategoryKeys[std::size_t(category)]);
    QSettings settings;
    if (settings.contains(key)) {
        QStringList out;
        for (const QString &e : settings.value(key).toString().split(QLatin1Char(','), Qt::SkipEmptyParts))
            out << e.trimmed().toLower().remove(QLatin1Char('.'));
        return out;
    }
    return defaultExtensions(category);
}

void reloadFileCategories()
{
    std::atomic_store(&tableSlot(), buildTable());
}

FileCategory categoryOf(QStringView fileName)
{
    const auto dot = fileName.lastIndexOf(QLatin1Char('.'));
    if (dot <= 0 || dot + 1 >= fileName.size())
        return FileCategory::Other;
    const auto table = currentTable();
    return table->value(fileName.mid(dot + 1).toString().toLower(), FileCategory::Other);
}

QString categoryName(FileCategory category)
{
    switch (category) {
    case FileCategory::Documents: return QObject::tr("Documents");
    case FileCategory::Images: return QObject::tr("Images");
    case FileCategory::Video: return QObject::tr("Video");
    case FileCategory::Audio: return QObject::tr("Audio");
    case FileCategory::Archives: return QObject::tr("Archives");
    case FileCategory::Code: return QObject::tr("Code");
    case FileCategory::DiskImages: return QObject::tr("Disk images");
    case FileCategory::Other: return QObject::tr("Other");
    }
    return {};
}

QColor categoryColor(FileCategory category)
{
    // Tableau 10: distinct at a glance, also for the common colour-vision deficiencies.
    static constexpr std::array<QRgb, kFileCategories> kColors = {0x4e79a7, 0x59a14f, 0xe15759, 0xf28e2b,
                                                                  0xb07aa1, 0x76b7b2, 0x9c755f, 0xbab0ac};
    return QColor::fromRgb(kColors[std::size_t(category)]);
}

QColor keptColor(Kept kept)
{
    // Darker than any category: bytes that are paid for and never seen.
    return kept == Kept::OldVersions ? QColor(0x5a, 0x3d, 0x8a) : QColor(0x2f, 0x2f, 0x2f);
}

QString keptName(Kept kept)
{
    return kept == Kept::OldVersions ? QCoreApplication::translate("Treemap", "Older versions")
                                     : QCoreApplication::translate("Treemap", "Unfinished uploads");
}

namespace {

constexpr float kCushionHeight = 0.5f;   // the top level's ridges
constexpr float kCushionFalloff = 0.75f; // each level's, relative to its parent's

// Adds the ridges of a rectangle at one level to a cushion's surface.
std::array<float, 4> withRidges(std::array<float, 4> s, const QRectF &r, float h)
{
    const auto ridge = [h](double a, double b, float &square, float &linear) {
        if (b - a <= 0)
            return;
        linear += float(4 * h * (b + a) / (b - a));
        square -= float(4 * h / (b - a));
    };
    ridge(r.left(), r.right(), s[0], s[1]);
    ridge(r.top(), r.bottom(), s[2], s[3]);
    return s;
}

constexpr std::size_t kNoFrame = SIZE_MAX;

// Lays out node's children in area; `frame`: the index of node's own tile in out (none for
// the root).
void layoutInto(const UsageNode &node, const QRectF &area, int depth, float h, const std::array<float, 4> &surface,
                double minSide, std::vector<TreemapTile> &out, std::size_t frame)
{
    std::vector<double> weights;
    weights.reserve(node.children.size());
    for (const auto &c : node.children)
        weights.push_back(double(c->bytes));
    const std::vector<QRectF> rects = squarify(weights, area);
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const QRectF &r = rects[i];
        if (r.width() < 1.0 || r.height() < 1.0) {
            if (frame != kNoFrame && !r.isEmpty())
                out[frame].filled = true;
            continue;
        }
        const UsageNode &child = *node.children[i];
        const auto cushion = withRidges(surface, r, h);
        // A folder with room shows what is inside it, within a one-pixel frame.
        const bool open = child.dir && !child.children.empty() && std::min(r.width(), r.height()) >= 4 * minSide;
        out.push_back({r, &child, depth, !open, false, cushion});
        if (open)
            layoutInto(child, r.adjusted(1, 1, -1, -1), depth + 1, h * kCushionFalloff, cushion, minSide, out,
                       out.size() - 1);
    }
}

} // namespace

std::vector<TreemapTile> layoutTreemap(const UsageNode &root, const QRectF &area, double minSide)
{
    std::vector<TreemapTile> out;
    layoutInto(root, area, 0, kCushionHeight, {}, minSide, out, kNoFrame);
    return out;
}

QImage renderTreemap(const std::vector<TreemapTile> &tiles, const QSize &size, const TileColoring &coloring)
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(QColor(0x60, 0x60, 0x60));
    // Light from the top left, a little in front (van Wijk's values).
    constexpr float lx = 0.09759f, ly = 0.19518f, lz = 0.97590f; // (1, 2, 10) normalised
    constexpr float ambient = 0.16f, diffuse = 0.84f;
    const int width = size.width(), height = size.height();
    const auto shade = [&](const TreemapTile &t, QRgb base, int x0, int x1, int y0, int y1) {
        const auto &s = t.cushion;
        for (int y = std::max(0, y0); y < std::min(height, y1); ++y) {
            auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
            const float py = float(y) + 0.5f;
            const float ny = -(2 * s[2] * py + s[3]);
            for (int x = std::max(0, x0); x < std::min(width, x1); ++x) {
                const float px = float(x) + 0.5f;
                const float nx = -(2 * s[0] * px + s[1]);
                const float cosa = (nx * lx + ny * ly + lz) / std::sqrt(nx * nx + ny * ny + 1.0f);
                const float i = ambient + diffuse * std::max(0.0f, cosa);
                line[x] = qRgb(std::min(255, int(float(qRed(base)) * i)), std::min(255, int(float(qGreen(base)) * i)),
                               std::min(255, int(float(qBlue(base)) * i)));
            }
        }
    };
    const QRgb folder = qRgb(0xa0, 0xa0, 0xa0), frame = qRgb(0x50, 0x50, 0x50);
    for (const TreemapTile &t : tiles) {
        const int x0 = int(std::lround(t.rect.left())), x1 = int(std::lround(t.rect.right()));
        const int y0 = int(std::lround(t.rect.top())), y1 = int(std::lround(t.rect.bottom()));
        if (t.leaf) {
            const QRgb base = coloring     ? coloring(*t.node)
                : t.node->kept != Kept::No ? keptColor(t.node->kept).rgb()
                : t.node->dir              ? folder
                                           : categoryColor(categoryOf(t.node->name)).rgb();
            shade(t, base, x0, x1, y0, y1);
            continue;
        }
        if (t.filled) // children too small to draw: the folder's grey under the others
            shade(t, folder, x0, x1, y0, y1);
        // A frame: only its one-pixel ring (the children cover the inside).
        shade(t, frame, x0, x1, y0, y0 + 1);
        shade(t, frame, x0, x1, y1 - 1, y1);
        shade(t, frame, x0, x0 + 1, y0, y1);
        shade(t, frame, x1 - 1, x1, y0, y1);
    }
    return image;
}

} // namespace strata
