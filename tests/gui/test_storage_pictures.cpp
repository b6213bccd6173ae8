// The storage pictures: the squarified treemap's rectangles tile their parent exactly,
// the usage view scans a folder in the background and zooms by click and breadcrumb, and
// the allocation map's totals match a known image served by a real nbdkit.
#include "tests/gui/gui_fixture.h"

#include "ui/common/allocation_map.h"
#include "ui/usage/treemap.h"
#include "ui/usage/usage_tree.h"
#include "ui/usage/usage_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QWheelEvent>

#include <chrono>
#include <cmath>

#include <numeric>

namespace strata {

using namespace gui_test;

class TestStoragePictures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void treemapTilesItsParent_data();
    void treemapTilesItsParent();
    void usageTreeSumsAndSorts();
    void usageViewScansAndZooms();
    void nestedTreemapTilesEveryFile();
    void usageOfARealisticTree();
    void usagePageStandsOnItsOwn();
    void fileCategoriesByExtension();
    void allocationCellsShareTheImage();
    void allocationMapOfAnNbdkitImage();
};

void TestStoragePictures::treemapTilesItsParent_data()
{
    QTest::addColumn<QList<double>>("weights");
    QTest::addColumn<QRectF>("area");
    QTest::newRow("one") << QList<double>{5} << QRectF(0, 0, 300, 200);
    QTest::newRow("paper example") << QList<double>{6, 6, 4, 3, 2, 2, 1} << QRectF(0, 0, 600, 400);
    QTest::newRow("tall") << QList<double>{50, 30, 10, 5, 5} << QRectF(10, 20, 90, 700);
    QTest::newRow("skewed") << QList<double>{1e9, 1000, 10, 1, 1} << QRectF(0, 0, 1024, 768);
    QTest::newRow("with zeros") << QList<double>{7, 3, 0, 0} << QRectF(0, 0, 100, 100);
    QList<double> many;
    for (int i = 2000; i > 0; --i)
        many << double(i % 97 + 1) * i;
    std::sort(many.begin(), many.end(), std::greater<>());
    QTest::newRow("2000 items") << many << QRectF(0, 0, 1200, 800);
}

void TestStoragePictures::treemapTilesItsParent()
{
    QFETCH(QList<double>, weights);
    QFETCH(QRectF, area);
    const std::vector<double> w(weights.begin(), weights.end());
    const auto rects = squarify(w, area);
    QCOMPARE(rects.size(), w.size());
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    double sum = 0;
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const double a = rects[i].width() * rects[i].height();
        sum += a;
        // Each rectangle's share of the area is its weight's share of the total.
        QVERIFY2(std::abs(a - w[i] / total * area.width() * area.height()) < 1e-6 * area.width() * area.height() + 1e-9,
                 qPrintable(QStringLiteral("item %1: area %2").arg(i).arg(a)));
        if (w[i] > 0)
            QVERIFY(area.adjusted(-1e-6, -1e-6, 1e-6, 1e-6).contains(rects[i]));
        for (std::size_t j = 0; j < i; ++j) // no overlaps
            QVERIFY(rects[i].intersected(rects[j]).width() * rects[i].intersected(rects[j]).height() < 1e-6);
    }
    QVERIFY(std::abs(sum - area.width() * area.height()) < 1e-6 * area.width() * area.height());
}

void TestStoragePictures::usageTreeSumsAndSorts()
{
    UsageTree tree;
    tree.add("b/deep/x.bin", false, 300); // a file before its folders, as a parallel walk may
    tree.add("a.txt", false, 10);
    tree.add("b", true, 0);
    tree.add("b/y.txt", false, 50);
    tree.add("c", true, 0); // empty folder
    tree.finish();
    UsageNode *root = tree.root();
    QCOMPARE(root->bytes, std::uint64_t(360));
    QCOMPARE(root->files, std::uint64_t(3));
    QCOMPARE(root->children.size(), std::size_t(3));
    QCOMPARE(root->children[0]->name, QStringLiteral("b")); // largest first
    QCOMPARE(root->children[0]->bytes, std::uint64_t(350));
    QCOMPARE(root->children[0]->children[0]->path(), QStringLiteral("b/deep"));
    QCOMPARE(root->children[2]->name, QStringLiteral("c"));
}

void TestStoragePictures::usageViewScansAndZooms()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://du/big/one.bin"), QByteArray(60000, 'x'));
    put(*registry, QStringLiteral("memory://du/big/two.bin"), QByteArray(30000, 'x'));
    put(*registry, QStringLiteral("memory://du/small.txt"), QByteArray(1000, 'x'));
    auto at = registry->open("memory://du/");
    QVERIFY(at.ok());
    UsageView view;
    view.resize(900, 600);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.scan(*at);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QCOMPARE(view.current()->bytes, std::uint64_t(91000));
    QCOMPARE(view.largest()->topLevelItemCount(), 2);
    QCOMPARE(view.largest()->topLevelItem(0)->text(0), QStringLiteral("big/"));
    // Its share, drawn as a bar in the Share column.
    QVERIFY(std::abs(view.largest()->topLevelItem(0)->data(3, Qt::UserRole + 1).toDouble() - 90000.0 / 91000.0) < 1e-9);
    // The rectangles share the map as the sizes do.
    const auto &rects = view.treemap()->rects();
    QCOMPARE(rects.size(), std::size_t(2));
    const double a0 = rects[0].width() * rects[0].height(), a1 = rects[1].width() * rects[1].height();
    QVERIFY(std::abs(a0 / (a0 + a1) - 90000.0 / 91000.0) < 1e-6);
    QTRY_VERIFY(view.treemap()->drawn());
    // A click selects the file under the cursor, and the list the folder that holds it.
    const QPoint inBig = rects[0].center().toPoint();
    QTest::mouseClick(view.treemap(), Qt::LeftButton, {}, inBig);
    QVERIFY(view.treemap()->selected());
    QCOMPARE(view.treemap()->selected()->parent->name, QStringLiteral("big"));
    QCOMPARE(view.current()->parent, nullptr); // no zoom
    QVERIFY(view.largest()->currentItem());
    QCOMPARE(view.largest()->currentItem()->text(0), QStringLiteral("big/"));
    // The list's selection shows in the map.
    view.largest()->setCurrentItem(view.largest()->topLevelItem(1));
    QCOMPARE(view.treemap()->selected()->name, QStringLiteral("small.txt"));
    // A double click on "big" zooms in; Backspace zooms out, and so does the root crumb.
    QTest::mouseDClick(view.treemap(), Qt::LeftButton, {}, inBig);
    QCOMPARE(view.current()->name, QStringLiteral("big"));
    QCOMPARE(view.treemap()->rects().size(), std::size_t(2));
    view.treemap()->setFocus();
    QTest::keyClick(view.treemap(), Qt::Key_Backspace);
    QCOMPARE(view.current()->parent, nullptr);
    QTest::mouseDClick(view.treemap(), Qt::LeftButton, {}, inBig);
    QCOMPARE(view.current()->name, QStringLiteral("big"));
    auto crumbs = view.findChildren<QToolButton *>(QStringLiteral("crumb"));
    QVERIFY(crumbs.size() >= 2);
    crumbs.front()->click();
    QCOMPARE(view.current()->parent, nullptr);
    // By keyboard: Return opens the folder that holds the selection, Alt+Up goes back.
    QTRY_VERIFY(view.treemap()->drawn());
    QTest::mouseClick(view.treemap(), Qt::LeftButton, {}, inBig);
    QCOMPARE(view.treemap()->selected()->parent->name, QStringLiteral("big"));
    view.treemap()->setFocus();
    QTest::keyClick(view.treemap(), Qt::Key_Return);
    QCOMPARE(view.current()->name, QStringLiteral("big"));
    QTest::keyClick(view.treemap(), Qt::Key_Up, Qt::AltModifier);
    QCOMPARE(view.current()->parent, nullptr);
    // The wheel: forward into the folder under the cursor, back out.
    const auto wheel = [&](int delta) {
        QWheelEvent event(QPointF(inBig), view.treemap()->mapToGlobal(QPointF(inBig)), QPoint(), QPoint(0, delta),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.treemap(), &event);
    };
    wheel(120);
    QCOMPARE(view.current()->name, QStringLiteral("big"));
    wheel(-120);
    QCOMPARE(view.current()->parent, nullptr);
}

// Everything below a folder is drawn: each file's tile has its share of its folder's inside,
// and the leaves cover the map. A tree of 200 000 files is laid out and drawn off the GUI
// thread (the time is printed: a figure for the notes, not a check).
void TestStoragePictures::nestedTreemapTilesEveryFile()
{
    UsageTree tree;
    for (int d = 0; d < 200; ++d)
        for (int f = 0; f < 1000; ++f)
            tree.add(QStringLiteral("d%1/sub%2/f%3.%4")
                         .arg(d)
                         .arg(f % 10)
                         .arg(f)
                         .arg(f % 3 ? QStringLiteral("jpg") : QStringLiteral("mp3"))
                         .toStdString(),
                     false, std::uint64_t(1000 + (d * 7919 + f * 104729) % 100000));
    tree.add("one/big.iso", false, 50'000'000);
    tree.add("one/small.txt", false, 10'000'000);
    tree.finish();
    const QRectF area(0, 0, 1200, 800);
    const auto started = std::chrono::steady_clock::now();
    const auto tiles = layoutTreemap(*tree.root(), area);
    const QImage image = renderTreemap(tiles, QSize(1200, 800));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    qInfo("200 000 files: %zu tiles laid out and drawn in %.1f ms", tiles.size(), ms);
    QVERIFY(!image.isNull());
    // Leaves cover the map once: their areas add up to it (frames' one-pixel rings excepted
    // by the insets, which are inside their folders' rectangles).
    double leaves = 0;
    for (const TreemapTile &t : tiles)
        if (t.depth == 0)
            leaves += t.rect.width() * t.rect.height();
    QVERIFY2(std::abs(leaves - area.width() * area.height()) < 1.0, qPrintable(QString::number(leaves)));
    // Inside "one", the two files share its inside 5 : 1.
    const TreemapTile *iso = nullptr, *txt = nullptr, *one = nullptr;
    for (const TreemapTile &t : tiles) {
        if (t.node->name == QStringLiteral("big.iso"))
            iso = &t;
        if (t.node->name == QStringLiteral("small.txt"))
            txt = &t;
        if (t.node->name == QStringLiteral("one"))
            one = &t;
    }
    QVERIFY(iso && txt && one);
    QVERIFY(!one->leaf && iso->leaf && txt->leaf);
    QCOMPARE(iso->depth, 1);
    const double a = iso->rect.width() * iso->rect.height(), b = txt->rect.width() * txt->rect.height();
    QVERIFY2(std::abs(a / b - 5.0) < 1e-6, qPrintable(QString::number(a / b)));
    const QRectF inside = one->rect.adjusted(1, 1, -1, -1);
    QVERIFY(std::abs(a + b - inside.width() * inside.height()) < 1e-6);
    QVERIFY(inside.contains(iso->rect.center()) && inside.contains(txt->rect.center()));
    // Files take their category's colour (shaded): the .iso tile is brown, not grey.
    const QColor c = image.pixelColor(iso->rect.center().toPoint());
    QVERIFY2(c.red() > c.blue() + 20, qPrintable(c.name()));
    // The widget draws the same off the GUI thread and says when.
    TreemapWidget widget;
    widget.resize(1200, 800);
    QSignalSpy drawn(&widget, &TreemapWidget::drawingFinished);
    widget.setNode(tree.root());
    QVERIFY(!widget.drawn()); // the GUI thread did not wait for it
    QTRY_VERIFY_WITH_TIMEOUT(widget.drawn(), 20000);
    qInfo("the widget drew it in %.1f ms off the GUI thread", widget.lastDrawMs());
}

// A home folder's worth of files of every kind (sparse: their sizes cost no disk), scanned
// and drawn: the picture the screenshot script keeps as usage.png.
void TestStoragePictures::usageOfARealisticTree()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    struct Kind {
        const char *folder;
        const char *extensions;
        int count;
        qint64 typical; // bytes
    };
    const Kind kinds[] = {{"Documents/letters", "pdf docx txt odt", 400, 200'000},
                          {"Documents/work/reports", "pdf xlsx pptx csv", 300, 2'000'000},
                          {"Photos/2024/summer", "jpg png heic", 900, 4'000'000},
                          {"Photos/2025/winter", "jpg raw", 600, 6'000'000},
                          {"Videos", "mp4 mkv mov", 40, 900'000'000},
                          {"Music/Artist/Album", "flac mp3", 500, 30'000'000},
                          {"Projects/strata/src", "cpp h py cmake json", 1200, 20'000},
                          {"Projects/strata/build", "o so a", 600, 400'000},
                          {"Downloads", "iso zip deb tar.zst", 60, 300'000'000},
                          {"VMs", "qcow2 img", 4, 8'000'000'000},
                          {"misc", "dat bin log", 300, 100'000}};
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    int files = 0;
    for (const Kind &k : kinds) {
        const QStringList exts = QString::fromLatin1(k.extensions).split(QLatin1Char(' '));
        for (int i = 0; i < k.count; ++i) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            const QString sub = k.count > 100 ? QStringLiteral("/set%1").arg(i % 12) : QString();
            const QString path = dir.path() + QLatin1Char('/') + QLatin1String(k.folder) + sub;
            QVERIFY(QDir().mkpath(path));
            QFile f(path + QStringLiteral("/file%1.%2").arg(i).arg(exts[int(state % std::uint64_t(exts.size()))]));
            QVERIFY(f.open(QIODevice::WriteOnly));
            // Sizes spread over two orders of magnitude around the typical one.
            const double spread = std::pow(10.0, double(state % 2000) / 1000.0 - 1.0);
            QVERIFY(f.resize(qint64(double(k.typical) * spread) + 1));
            ++files;
        }
    }
    auto registry = makeRegistry();
    auto at = registry->open(QUrl::fromLocalFile(dir.path()).toString().toStdString());
    QVERIFY(at.ok());
    UsageView view;
    view.resize(1200, 720);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.scan(*at);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QCOMPARE(view.current()->files, std::uint64_t(files));
    QTRY_VERIFY(view.treemap()->drawn());
    qInfo("%d files drawn in %.1f ms", files, view.treemap()->lastDrawMs());
    if (const QString shots = qEnvironmentVariable("STRATA_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(view.grab().save(shots + QStringLiteral("/usage.png")));
    // A month later: videos grew, a VM image shrank, downloads were cleared, a new build
    // folder appeared. Compared with the scan saved before: the changes picture.
    const QString saved =
        dir.filePath(QStringLiteral("../before-%1.strata-scan").arg(QCoreApplication::applicationPid()));
    QVERIFY(view.saveScan(saved));
    for (const QString &name : QDir(dir.filePath(QStringLiteral("Videos"))).entryList(QDir::Files).mid(0, 12)) {
        QFile f(dir.filePath(QStringLiteral("Videos/") + name));
        QVERIFY(f.resize(f.size() * 3));
    }
    QVERIFY(QDir(dir.filePath(QStringLiteral("Downloads"))).removeRecursively());
    const QString vm =
        dir.filePath(QStringLiteral("VMs/") + QDir(dir.filePath(QStringLiteral("VMs"))).entryList(QDir::Files)[0]);
    QVERIFY(QFile(vm).resize(QFile(vm).size() / 4));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("Projects/strata/build-release"))));
    for (int i = 0; i < 300; ++i) {
        QFile f(dir.filePath(QStringLiteral("Projects/strata/build-release/obj%1.o").arg(i)));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.resize(qint64(2'000'000 + i * 10'000)));
    }
    view.scan(*at);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 20000);
    QSignalSpy compared(&view, &UsageView::comparisonFinished);
    view.compareWith(saved);
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 20000);
    QVERIFY2(compared[0][0].toBool(), qPrintable(compared[0][1].toString()));
    QFile::remove(saved);
    QVERIFY2(compared[0][1].toString().contains(QStringLiteral("1 vanished")), qPrintable(compared[0][1].toString()));
    QTRY_VERIFY(view.treemap()->drawn());
    if (const QString shots = qEnvironmentVariable("STRATA_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(view.grab().save(shots + QStringLiteral("/usage-changes.png")));
}

// The page alone: a location typed and scanned (opened off the GUI thread), the progress
// line while it walks, a bad location's error, cancel mid-scan, a scan saved and opened
// again with the same totals, recent locations kept.
void TestStoragePictures::usagePageStandsOnItsOwn()
{
    auto registry = makeRegistry(std::chrono::milliseconds(30));
    for (int i = 0; i < 40; ++i)
        put(*registry, QStringLiteral("slow://u/d%1/f%2.txt").arg(i % 8).arg(i), QByteArray(100 * (i + 1), 'x'));
    UsageView view;
    view.setRegistry(registry.get());
    view.setLocations({QStringLiteral("memory://nothing-here/")});
    view.resize(1000, 600);
    view.show();
    QVERIFY(view.locationBox()->findText(QStringLiteral("memory://nothing-here/")) >= 0);
    QSignalSpy done(&view, &UsageView::scanFinished);
    // A location that cannot be opened says why.
    view.locationBox()->setEditText(QStringLiteral("nosuch://x/"));
    QTest::keyClick(view.locationBox()->lineEdit(), Qt::Key_Return);
    QTRY_COMPARE(done.count(), 1);
    QVERIFY(!done[0][0].toBool());
    QVERIFY2(done[0][1].toString().contains(QStringLiteral("nosuch")), qPrintable(done[0][1].toString()));
    // A slow store: the window keeps answering, the progress line counts, then the totals.
    view.locationBox()->setEditText(QStringLiteral("slow://u/"));
    view.scanTyped();
    // Opening and walking are not on the GUI thread: it is back before the store (30 ms a
    // call, the opening included) has given a single entry.
    QVERIFY2(view.statusText().startsWith(QStringLiteral("Scanning… 0 entries")), qPrintable(view.statusText()));
    QTRY_VERIFY(view.statusText().startsWith(QStringLiteral("Scanning")));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 20000);
    QVERIFY2(done[1][0].toBool(), qPrintable(done[1][1].toString()));
    QCOMPARE(view.current()->files, std::uint64_t(40));
    QCOMPARE(view.current()->bytes, std::uint64_t(100 * 40 * 41 / 2));
    QCOMPARE(view.largest()->topLevelItemCount(), 8);
    QCOMPARE(view.largest()->topLevelItem(0)->columnCount(), 6); // Change is shown when comparing
    // Folders in the list open to their files.
    QTreeWidgetItem *first = view.largest()->topLevelItem(0);
    first->setExpanded(true);
    QCOMPARE(first->childCount(), 5);
    QVERIFY(first->child(0)->text(0).endsWith(QStringLiteral(".txt")));
    // The scanned location heads the recent ones.
    QCOMPARE(view.locationBox()->itemText(0), QStringLiteral("slow://u/"));
    // Entries have their URIs; the menu on a file opens its folder in the Files tab.
    const UsageNode *folder = view.current()->children[0].get();
    const UsageNode *inside = folder->children[0].get();
    // (the slow store names its entries by the memory store it wraps)
    QCOMPARE(view.uriOf(folder), QStringLiteral("memory://u/") + folder->name);
    QCOMPARE(view.uriOf(inside), QStringLiteral("memory://u/") + folder->name + QLatin1Char('/') + inside->name);
    QSignalSpy opened(&view, &UsageView::openRequested);
    QTRY_VERIFY(view.treemap()->drawn());
    const QPoint inFolder = view.treemap()->rects()[0].center().toPoint();
    Q_EMIT view.treemap()->customContextMenuRequested(inFolder);
    auto *menu = view.findChild<QMenu *>();
    QVERIFY(menu);
    QCOMPARE(menu->actions()[1]->text(), QStringLiteral("&Copy URI"));
    menu->actions()[0]->trigger();
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened[0][0].toString(), view.uriOf(folder)); // the file's folder, or the folder
    menu->close();
    // Saved and opened again: the same tree, no walk.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("u.strata-scan"));
    QVERIFY(view.saveScan(file));
    view.openScan(file);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, 10000);
    QVERIFY2(done[2][0].toBool(), qPrintable(done[2][1].toString()));
    QCOMPARE(view.current()->files, std::uint64_t(40));
    QCOMPARE(view.current()->bytes, std::uint64_t(100 * 40 * 41 / 2));
    QVERIFY(view.uriOf(view.current()->children[0].get()).isEmpty()); // read from a file: nowhere to act
    // A damaged file is refused and the tree on show stays.
    QFile damaged(dir.filePath(QStringLiteral("bad.strata-scan")));
    QVERIFY(damaged.open(QIODevice::WriteOnly) && damaged.write("{\"format\":\"nope\"}\n") > 0);
    damaged.close();
    view.openScan(damaged.fileName());
    QTRY_COMPARE(done.count(), 4);
    QVERIFY(!done[3][0].toBool());
    QVERIFY2(done[3][1].toString().contains(QStringLiteral("not a readable strata scan")),
             qPrintable(done[3][1].toString()));
    QVERIFY2(view.statusText().contains(QStringLiteral("not a readable strata scan")), qPrintable(view.statusText()));
    QCOMPARE(view.current()->files, std::uint64_t(40));
    // Cancel mid-scan: it stops, says so, and the last tree stays.
    view.locationBox()->setEditText(QStringLiteral("slow://u/"));
    view.scanTyped();
    QTRY_VERIFY(view.scanning());
    view.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 5, 10000);
    QVERIFY(!done[4][0].toBool());
    QCOMPARE(done[4][1].toString(), QStringLiteral("Scan cancelled"));
    QCOMPARE(view.statusText(), QStringLiteral("Scan cancelled")); // what the status line says
    QCOMPARE(view.current()->files, std::uint64_t(40));
}

void TestStoragePictures::fileCategoriesByExtension()
{
    QCOMPARE(categoryOf(u"report.PDF"), FileCategory::Documents);
    QCOMPARE(categoryOf(u"IMG_0001.jpeg"), FileCategory::Images);
    QCOMPARE(categoryOf(u"film.mkv"), FileCategory::Video);
    QCOMPARE(categoryOf(u"song.flac"), FileCategory::Audio);
    QCOMPARE(categoryOf(u"backup.tar.zst"), FileCategory::Archives);
    QCOMPARE(categoryOf(u"main.cpp"), FileCategory::Code);
    QCOMPARE(categoryOf(u"disk.qcow2"), FileCategory::DiskImages);
    QCOMPARE(categoryOf(u"Makefile"), FileCategory::Other);
    QCOMPARE(categoryOf(u".bashrc"), FileCategory::Other); // a hidden file, not an extension
    QCOMPARE(categoryOf(u"notes."), FileCategory::Other);
    // The lists come from the settings when set there.
    QSettings settings;
    settings.setValue(QStringLiteral("usage/extensions/code"), QStringLiteral("cpp, .strata"));
    reloadFileCategories();
    QCOMPARE(categoryOf(u"x.strata"), FileCategory::Code);
    QCOMPARE(categoryOf(u"x.py"), FileCategory::Other);
    settings.remove(QStringLiteral("usage/extensions/code"));
    reloadFileCategories();
    QCOMPARE(categoryOf(u"x.py"), FileCategory::Code);
}

void TestStoragePictures::allocationCellsShareTheImage()
{
    const std::vector<Extent> map{
        {0, 100, ExtentKind::Data}, {100, 100, ExtentKind::Zero}, {200, 200, ExtentKind::Hole}};
    const auto cells = allocationCells(map, 400, 4);
    QCOMPARE(cells[0].data, 1.0);
    QCOMPARE(cells[1].zero, 1.0);
    QCOMPARE(cells[2].data + cells[2].zero, 0.0);
    const auto halves = allocationCells(map, 400, 2);
    QCOMPARE(halves[0].data, 0.5);
    QCOMPARE(halves[0].zero, 0.5);
    const auto totals = allocationTotals(map);
    QCOMPARE(totals.data, std::uint64_t(100));
    QCOMPARE(totals.dataPercent(), 25.0);
}

// nbdkit's data plugin serves a sparse 16 MiB image with 64 KiB written at 1 MiB and at
// 8 MiB: block status reports exactly that much data.
void TestStoragePictures::allocationMapOfAnNbdkitImage()
{
    QTemporaryDir dir;
    const QString script = QStringLiteral(STRATA_NBDKIT_SH);
    QProcess start;
    start.start(QStringLiteral("bash"),
                {script, QStringLiteral("start"), dir.path(), QStringLiteral("img"), QStringLiteral("data"),
                 QStringLiteral("@1048576 ( 0xaa )*65536 @8388608 ( 0x55 )*65536"), QStringLiteral("size=16M")});
    QVERIFY(start.waitForFinished(30000));
    const QString uri = QString::fromUtf8(start.readAllStandardOutput()).trimmed();
    QVERIFY2(start.exitCode() == 0, qPrintable(QString::fromUtf8(start.readAllStandardError())));
    auto stop = qScopeGuard([&] {
        QProcess::execute(QStringLiteral("bash"), {script, QStringLiteral("stop"), dir.path(), QStringLiteral("img")});
    });
    auto registry = makeRegistry();
    auto at = registry->open(uri.toStdString());
    QVERIFY2(at.ok(), at.ok() ? "" : at.error().message().c_str());
    AllocationMap map;
    map.resize(600, 240);
    map.show();
    QSignalSpy loaded(&map, &AllocationMap::loaded);
    map.load(at->op, at->path);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(map.totals().total(), std::uint64_t(16) << 20);
    QCOMPARE(map.totals().data, std::uint64_t(2 * 65536));
    QVERIFY2(map.summary().contains(QLatin1String("(0.8%)")), qPrintable(map.summary()));
    QVERIFY(!map.grab().toImage().isNull());
    if (const QString shots = qEnvironmentVariable("STRATA_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(map.grab().save(shots + QStringLiteral("/allocation-map.png")));
    // The Usage page on the export: one tile, the image, and where its data is.
    UsageView view;
    view.setRegistry(registry.get());
    view.resize(1000, 600);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.locationBox()->setEditText(uri);
    view.scanTyped();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QCOMPARE(view.current()->children.size(), std::size_t(1));
    QCOMPARE(view.current()->bytes, std::uint64_t(16) << 20);
    QVERIFY(view.uriOf(view.current()->children[0].get()).startsWith(QStringLiteral("nbd")));
    QVERIFY(!view.canDelete(view.current()->children[0].get())); // the location itself
    QTRY_VERIFY(view.imageMap()->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(view.imageMap()->totals().data, std::uint64_t(2 * 65536), 10000);
    QCOMPARE(view.imageMap()->totals().total(), std::uint64_t(16) << 20);
}

} // namespace strata

QTEST_MAIN(strata::TestStoragePictures)
#include "test_storage_pictures.moc"
