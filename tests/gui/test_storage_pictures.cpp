// The storage pictures: the squarified treemap's rectangles tile their parent exactly,
// the usage view scans a folder in the background and zooms by click and breadcrumb, and
// the allocation map's totals match a known image served by a real nbdkit.
#include "tests/gui/gui_fixture.h"

#include "ui/allocation_map.h"
#include "ui/treemap.h"
#include "ui/usage_tree.h"
#include "ui/usage_view.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

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
    // The rectangles share the map as the sizes do.
    const auto &rects = view.treemap()->rects();
    QCOMPARE(rects.size(), std::size_t(2));
    const double a0 = rects[0].width() * rects[0].height(), a1 = rects[1].width() * rects[1].height();
    QVERIFY(std::abs(a0 / (a0 + a1) - 90000.0 / 91000.0) < 1e-6);
    if (const QString shots = qEnvironmentVariable("STRATA_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(view.grab().save(shots + QStringLiteral("/usage.png")));
    // A click on "big" zooms in; the root crumb zooms out.
    QTest::mouseClick(view.treemap(), Qt::LeftButton, {}, rects[0].center().toPoint());
    QCOMPARE(view.current()->name, QStringLiteral("big"));
    QCOMPARE(view.treemap()->rects().size(), std::size_t(2));
    auto crumbs = view.findChildren<QToolButton *>();
    QVERIFY(crumbs.size() >= 2);
    crumbs.front()->click();
    QCOMPARE(view.current()->parent, nullptr);
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
}

} // namespace strata

QTEST_MAIN(strata::TestStoragePictures)
#include "test_storage_pictures.moc"
