// The Usage page beyond a finished picture: the tree keeps its totals while entries come
// and a copy of its largest parts keeps the proportions; the page fills in while the walk
// runs; an entry deleted from the page goes from the storage (confined to the scanned
// folder, asked first) and from the tree; a saved scan compared with the tree on show
// gives each entry its change and the map its colours.
#include "tests/gui/gui_fixture.h"

#include "ui/browser/file_actions.h"
#include "ui/common/allocation_map.h"
#include "ui/usage/treemap_widget.h"
#include "ui/usage/usage_changes.h"
#include "ui/usage/usage_tree.h"
#include "ui/usage/usage_view.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <future>
#include <thread>

namespace strata {

using namespace gui_test;

namespace {

QMessageBox *deleteQuestion()
{
    QMessageBox *found = nullptr;
    waitFor(
        [&] {
            for (QWidget *w : QApplication::topLevelWidgets())
                if (auto *d = qobject_cast<QMessageBox *>(w);
                    d && d->objectName() == QLatin1String("deleteDialog") && d->isVisible())
                    found = d;
            return found != nullptr;
        },
        5000);
    return found;
}

void answer(QMessageBox *box, QMessageBox::ButtonRole role)
{
    for (auto *b : box->buttons())
        if (box->buttonRole(b) == role
            || (role == QMessageBox::RejectRole && box->standardButton(b) == QMessageBox::Cancel)) {
            b->click();
            return;
        }
    QFAIL("no such button");
}

UsageNode *childNamed(const UsageNode *folder, const QString &name)
{
    for (const auto &c : folder->children)
        if (c->name == name)
            return c.get();
    return nullptr;
}

// Every copied folder's children add up to it (a "… more" tile holds the rest).
bool proportionsKept(const UsageNode &node)
{
    if (node.children.empty())
        return true;
    std::uint64_t sum = 0;
    for (const auto &c : node.children) {
        sum += c->bytes;
        if (!proportionsKept(*c))
            return false;
    }
    return sum == node.bytes;
}

} // namespace

class TestUsagePage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void treeKeepsTotalsAsEntriesCome();
    void snapshotKeepsTheLargestParts();
    void removeWaitsForReaders();
    void pageFillsInWhileWalking();
    void deleteFromThePage();
    void changesSinceASavedScan();
    void whereASparseFilesDataIs();
    void recentScansListed();
};

void TestUsagePage::treeKeepsTotalsAsEntriesCome()
{
    UsageTree tree;
    tree.add("a/b/x.bin", false, 300, 4096);
    QCOMPARE(tree.root()->bytes, std::uint64_t(300));
    QCOMPARE(tree.root()->files, std::uint64_t(1));
    tree.add("a", true, 0, 4096); // the folder itself, after what is in it
    tree.add("a/y.txt", false, 20, 4096);
    tree.add("z.txt", false, 500, 4096);
    const UsageNode *a = childNamed(tree.root(), QStringLiteral("a"));
    QVERIFY(a && a->dir);
    QCOMPARE(a->bytes, std::uint64_t(320));
    QCOMPARE(a->allocated, std::uint64_t(3 * 4096));
    QCOMPARE(a->files, std::uint64_t(2));
    QCOMPARE(tree.root()->bytes, std::uint64_t(820));
    tree.finish();
    QCOMPARE(tree.root()->children[0]->name, QStringLiteral("z.txt"));
    QCOMPARE(tree.find(u"a/b/x.bin")->bytes, std::uint64_t(300));
    QVERIFY(!tree.find(u"a/nothing"));
    // Removing keeps every folder's totals and the order largest first.
    QVERIFY(tree.remove(tree.find(u"z.txt")));
    QCOMPARE(tree.root()->bytes, std::uint64_t(320));
    QCOMPARE(tree.root()->files, std::uint64_t(2));
    QCOMPARE(tree.root()->children.size(), std::size_t(1));
    QVERIFY(tree.remove(tree.find(u"a/b")));
    QCOMPARE(tree.find(u"a")->bytes, std::uint64_t(20));
    QCOMPARE(tree.find(u"a")->allocated, std::uint64_t(2 * 4096));
    QCOMPARE(tree.root()->files, std::uint64_t(1));
}

void TestUsagePage::snapshotKeepsTheLargestParts()
{
    UsageTree tree;
    std::uint64_t big = 0;
    for (int i = 1; i <= 1000; ++i) {
        tree.add("big/f" + std::to_string(i), false, std::uint64_t(i));
        big += std::uint64_t(i);
    }
    for (int i = 0; i < 30; ++i)
        tree.add("small/s" + std::to_string(i) + "/g", false, 2);
    tree.add("top.bin", false, 100);
    const auto copy = tree.snapshot(60, 20);
    const UsageNode *root = copy->root();
    QCOMPARE(root->bytes, tree.root()->bytes);
    QCOMPARE(root->files, std::uint64_t(1031));
    QCOMPARE(root->children[0]->name, QStringLiteral("big")); // largest first
    const UsageNode *b = root->children[0].get();
    QCOMPARE(b->bytes, big);
    QCOMPARE(b->children.size(), std::size_t(21)); // 20 largest and the rest in one tile
    QCOMPARE(b->hidden, std::uint64_t(980));
    // The rest (980 files, 190 890 bytes) is the largest tile; then f1000 down to f981.
    QCOMPARE(b->children[0]->bytes, big - (981 + 1000) * 20 / 2);
    QCOMPARE(b->children[1]->name, QStringLiteral("f1000"));
    QCOMPARE(b->children[20]->name, QStringLiteral("f981"));
    for (std::size_t i = 1; i < b->children.size(); ++i)
        QVERIFY(b->children[i - 1]->bytes >= b->children[i]->bytes);
    QVERIFY(proportionsKept(*root));
    // The budget (60 nodes) runs out before every small folder is opened: those left keep
    // their totals as one tile each.
    const UsageNode *small = childNamed(root, QStringLiteral("small"));
    QVERIFY(small);
    QCOMPARE(small->bytes, std::uint64_t(60));
    std::size_t closed = 0;
    for (const auto &c : small->children)
        closed += c->dir && c->children.empty();
    QVERIFY2(closed > 0, "every folder was copied within a budget of 60");
    // The original is untouched.
    QCOMPARE(childNamed(tree.root(), QStringLiteral("big"))->children.size(), std::size_t(1000));
}

void TestUsagePage::removeWaitsForReaders()
{
    UsageTree tree;
    tree.add("a.bin", false, 10);
    tree.add("b.bin", false, 20);
    tree.finish();
    std::promise<void> holding, release;
    std::thread reader([&] {
        const std::shared_lock lock(tree.mutex()); // as a drawing does
        holding.set_value();
        release.get_future().wait();
    });
    holding.get_future().wait();
    QVERIFY(!tree.remove(tree.find(u"a.bin"))); // refused, not waited for
    QCOMPARE(tree.root()->bytes, std::uint64_t(30));
    release.set_value();
    reader.join();
    QVERIFY(tree.remove(tree.find(u"a.bin")));
    QCOMPARE(tree.root()->bytes, std::uint64_t(20));
}

// A chain of folders 16 deep on a store that takes 40 ms a call: the walk lasts well over
// the first picture's 300 ms, so pictures of the part found so far come while it runs.
void TestUsagePage::pageFillsInWhileWalking()
{
    auto registry = makeRegistry(std::chrono::milliseconds(40));
    QString chain = QStringLiteral("slow://live");
    std::uint64_t total = 0;
    for (int depth = 0; depth < 16; ++depth) {
        chain += QStringLiteral("/d%1").arg(depth);
        put(*registry, chain + QStringLiteral("/f.bin"), QByteArray(1000 + depth, 'x'));
        total += std::uint64_t(1000 + depth);
    }
    put(*registry, QStringLiteral("slow://live/side/s.bin"), QByteArray(50, 'y'));
    total += 50;
    UsageView view;
    view.setRegistry(registry.get());
    view.resize(900, 500);
    view.show();
    QSignalSpy previews(&view, &UsageView::previewShown);
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.locationBox()->setEditText(QStringLiteral("slow://live/"));
    view.scanTyped();
    QTRY_VERIFY_WITH_TIMEOUT(previews.count() >= 1, 10000);
    QVERIFY2(done.isEmpty(), "the walk ended before any picture of it");
    QVERIFY(view.scanning());
    QVERIFY(view.current());
    QVERIFY(view.current()->bytes > 0);
    QVERIFY(view.current()->bytes < total); // only part of it so far
    QVERIFY(view.largest()->topLevelItemCount() >= 1);
    // Nothing to save or delete while it runs.
    QVERIFY(!view.canDelete(view.current()->children[0].get()));
    QVERIFY(!view.saveScan(QDir::temp().filePath(QStringLiteral("never.strata-scan"))));
    // Zoomed in during the walk, the page stays there as pictures come and when it ends.
    UsageNode *d0 = childNamed(view.current(), QStringLiteral("d0"));
    QVERIFY(d0);
    view.zoomTo(d0);
    const int seen = int(previews.count());
    QTRY_VERIFY_WITH_TIMEOUT(previews.count() > seen || !done.isEmpty(), 10000);
    QCOMPARE(view.current()->path(), QStringLiteral("d0"));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QCOMPARE(view.current()->path(), QStringLiteral("d0"));
    QCOMPARE(view.current()->parent->bytes, total);
    QCOMPARE(view.current()->parent->files, std::uint64_t(17));
}

void TestUsagePage::deleteFromThePage()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://del/d1/a.bin"), QByteArray(300, 'a'));
    put(*registry, QStringLiteral("memory://del/d1/b.bin"), QByteArray(200, 'b'));
    put(*registry, QStringLiteral("memory://del/d10/keep.bin"), QByteArray(100, 'k')); // a name d1 starts
    put(*registry, QStringLiteral("memory://del/top.bin"), QByteArray(50, 't'));
    QWidget window;
    FileActions actions(&window);
    UsageView view(&window);
    view.setRegistry(registry.get());
    view.setFileActions(&actions);
    window.resize(900, 500);
    window.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    QSignalSpy deleted(&view, &UsageView::entryDeleted);
    view.locationBox()->setEditText(QStringLiteral("memory://del/"));
    view.scanTyped();
    QTRY_COMPARE(done.count(), 1);
    QVERIFY(done[0][0].toBool());
    QCOMPARE(view.current()->bytes, std::uint64_t(650));
    QVERIFY(!view.canDelete(view.current())); // never the scanned folder itself
    // The menu offers Delete; Cancel keeps everything.
    UsageNode *top = childNamed(view.current(), QStringLiteral("top.bin"));
    QVERIFY(top && view.canDelete(top));
    view.deleteEntry(top);
    QMessageBox *box = deleteQuestion();
    QVERIFY(box);
    answer(box, QMessageBox::RejectRole);
    QTest::qWait(100);
    QVERIFY(deleted.isEmpty());
    QVERIFY(exists(*registry, QStringLiteral("memory://del/top.bin")));
    QCOMPARE(view.current()->bytes, std::uint64_t(650));
    // A folder, with everything in it: gone from the storage and the tree; its neighbour
    // whose name it starts stays.
    view.deleteEntry(childNamed(view.current(), QStringLiteral("d1")));
    box = deleteQuestion();
    QVERIFY(box);
    QVERIFY2(box->informativeText().contains(QStringLiteral("d1 (folder, with everything in it)")),
             qPrintable(box->informativeText()));
    answer(box, QMessageBox::DestructiveRole);
    QTRY_COMPARE(deleted.count(), 1);
    QVERIFY(deleted[0][0].toBool());
    QVERIFY(!exists(*registry, QStringLiteral("memory://del/d1/a.bin")));
    QVERIFY(!exists(*registry, QStringLiteral("memory://del/d1")));
    QCOMPARE(get(*registry, QStringLiteral("memory://del/d10/keep.bin")), QByteArray(100, 'k'));
    QCOMPARE(view.current()->bytes, std::uint64_t(150));
    QCOMPARE(view.current()->files, std::uint64_t(2));
    QVERIFY(!childNamed(view.current(), QStringLiteral("d1")));
    QCOMPARE(view.current()->children[0]->name, QStringLiteral("d10"));
    QCOMPARE(view.largest()->topLevelItemCount(), 2);
    // A scan read from a file has nowhere to delete from.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("del.strata-scan"));
    QVERIFY(view.saveScan(file));
    view.openScan(file);
    QTRY_COMPARE(done.count(), 2);
    QVERIFY(!view.canDelete(view.current()->children[0].get()));
    Q_EMIT view.largest()->customContextMenuRequested(QPoint(5, 5));
    auto *menu = view.findChild<QMenu *>();
    QVERIFY(menu);
    bool offered = false;
    for (QAction *a : menu->actions())
        if (a->text().contains(QStringLiteral("Delete")))
            offered = a->isEnabled();
    QVERIFY(!offered);
    menu->close();
}

void TestUsagePage::changesSinceASavedScan()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://chg/grow.bin"), QByteArray(4000, 'g'));
    put(*registry, QStringLiteral("memory://chg/shrink.bin"), QByteArray(3000, 's'));
    put(*registry, QStringLiteral("memory://chg/same.bin"), QByteArray(2000, 'u'));
    put(*registry, QStringLiteral("memory://chg/old/gone.bin"), QByteArray(700, 'o'));
    UsageView view;
    view.setRegistry(registry.get());
    view.resize(1000, 600);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    QSignalSpy compared(&view, &UsageView::comparisonFinished);
    view.locationBox()->setEditText(QStringLiteral("memory://chg/"));
    view.scanTyped();
    QTRY_COMPARE(done.count(), 1);
    QTemporaryDir dir;
    const QString before = dir.filePath(QStringLiteral("before.strata-scan"));
    QVERIFY(view.saveScan(before));
    // Between the scans: grown, shrunk, appeared (a folder with files), vanished.
    put(*registry, QStringLiteral("memory://chg/grow.bin"), QByteArray(9000, 'g'));
    put(*registry, QStringLiteral("memory://chg/shrink.bin"), QByteArray(1000, 's'));
    put(*registry, QStringLiteral("memory://chg/new/n1.bin"), QByteArray(5000, 'n'));
    put(*registry, QStringLiteral("memory://chg/new/n2.bin"), QByteArray(2500, 'n'));
    {
        auto gone = registry->open("memory://chg/old/gone.bin");
        QVERIFY(gone && gone->op->remove(gone->path));
    }
    view.scanTyped();
    QTRY_COMPARE(done.count(), 2);
    QVERIFY(!view.comparing());
    view.compareWith(dir.filePath(QStringLiteral("missing.strata-scan")));
    QTRY_COMPARE(compared.count(), 1);
    QVERIFY(!compared[0][0].toBool());
    QVERIFY(!view.comparing());
    view.compareWith(before);
    QTRY_COMPARE(compared.count(), 2);
    QVERIFY2(compared[1][0].toBool(), qPrintable(compared[1][1].toString()));
    QVERIFY(view.comparing());
    const QString summary = compared[1][1].toString();
    QVERIFY2(summary.contains(QStringLiteral("1 appeared")) && summary.contains(QStringLiteral("1 vanished")),
             qPrintable(summary));
    const UsageNode *root = view.current();
    const UsageNode *grow = childNamed(root, QStringLiteral("grow.bin"));
    const UsageNode *shrink = childNamed(root, QStringLiteral("shrink.bin"));
    const UsageNode *same = childNamed(root, QStringLiteral("same.bin"));
    const UsageNode *fresh = childNamed(root, QStringLiteral("new"));
    const UsageNode *old = childNamed(root, QStringLiteral("old"));
    QVERIFY(grow && shrink && same && fresh);
    QCOMPARE(view.changeOf(grow).before, std::uint64_t(4000));
    QVERIFY(!view.changeOf(grow).appeared);
    QCOMPARE(view.changeOf(shrink).before, std::uint64_t(3000));
    QCOMPARE(view.changeOf(same).before, std::uint64_t(2000));
    QVERIFY(view.changeOf(fresh).appeared);
    QVERIFY(view.changeOf(childNamed(fresh, QStringLiteral("n1.bin"))).appeared); // below what appeared
    if (old) // an empty folder where the store keeps one
        QCOMPARE(view.changeOf(old).before, std::uint64_t(700));
    QCOMPARE(view.changeOf(root).before, std::uint64_t(4000 + 3000 + 2000 + 700));
    // The list says it in its Change column; the map in its colours.
    QVERIFY(!view.largest()->isColumnHidden(kChangeColumn));
    QString growText, freshText, sameText;
    for (int i = 0; i < view.largest()->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = view.largest()->topLevelItem(i);
        if (item->text(0) == QStringLiteral("grow.bin"))
            growText = item->text(kChangeColumn);
        if (item->text(0) == QStringLiteral("new/"))
            freshText = item->text(kChangeColumn);
        if (item->text(0) == QStringLiteral("same.bin"))
            sameText = item->text(kChangeColumn);
    }
    QVERIFY2(growText.startsWith(QLatin1Char('+')) && growText.contains(QStringLiteral("4.9 KiB")),
             qPrintable(growText));
    QCOMPARE(freshText, QStringLiteral("new"));
    QVERIFY(sameText.isEmpty());
    QTRY_VERIFY(view.treemap()->drawn());
    const QImage picture = view.treemap()->grab().toImage();
    const auto colourIn = [&](const UsageNode *node) {
        for (std::size_t i = 0; i < root->children.size(); ++i)
            if (root->children[i].get() == node) {
                const QRectF r = view.treemap()->rects()[i];
                return QColor(picture.pixel((r.center() + QPointF(r.width() / 4, r.height() / 4)).toPoint()));
            }
        return QColor();
    };
    const QColor grown = colourIn(grow), shrunk = colourIn(shrink), appeared = colourIn(fresh),
                 unchanged = colourIn(same);
    QVERIFY2(grown.red() > grown.blue() + 40, qPrintable(grown.name()));
    QVERIFY2(shrunk.blue() > shrunk.red() + 40, qPrintable(shrunk.name()));
    QVERIFY2(appeared.red() > appeared.blue() + 80 && appeared.green() > appeared.blue() + 40,
             qPrintable(appeared.name()));
    QVERIFY2(std::abs(unchanged.red() - unchanged.blue()) < 12, qPrintable(unchanged.name()));
    // Back to categories; a new scan ends the comparison too.
    view.stopComparing();
    QVERIFY(!view.comparing());
    QVERIFY(view.largest()->isColumnHidden(kChangeColumn));
    view.compareWith(before);
    QTRY_COMPARE(compared.count(), 3);
    QVERIFY(view.comparing());
    view.scanTyped();
    QTRY_COMPARE(done.count(), 3);
    QVERIFY(!view.comparing());
}

// A sparse file's data, zeros and holes, beside the file view, once it is selected.
void TestUsagePage::whereASparseFilesDataIs()
{
    QTemporaryDir dir;
    QFile image(dir.filePath(QStringLiteral("disk.img")));
    QVERIFY(image.open(QIODevice::WriteOnly) && image.resize(8 << 20) && image.seek(1 << 20));
    QVERIFY(image.write(QByteArray(65536, 'd')) == 65536);
    image.close();
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("sub"))));
    auto registry = makeRegistry();
    UsageView view;
    view.setRegistry(registry.get());
    view.resize(1000, 600);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.locationBox()->setEditText(QUrl::fromLocalFile(dir.path()).toString());
    view.scanTyped();
    QTRY_COMPARE(done.count(), 1);
    QVERIFY(!view.imageMap()->isVisible()); // nothing selected
    const UsageNode *disk = childNamed(view.current(), QStringLiteral("disk.img"));
    QVERIFY(disk);
    QCOMPARE(disk->bytes, std::uint64_t(8 << 20));
    QSignalSpy loaded(view.imageMap(), &AllocationMap::loaded);
    view.treemap()->select(disk);
    QVERIFY(view.imageMap()->isVisible());
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(view.imageMap()->totals().total(), std::uint64_t(8 << 20));
    QCOMPARE(view.imageMap()->totals().data, std::uint64_t(65536));
    // A folder has no such map.
    view.treemap()->select(childNamed(view.current(), QStringLiteral("sub")));
    QVERIFY(!view.imageMap()->isVisible());
    // The file alone as the location: one tile, selected, its map at once.
    view.locationBox()->setEditText(QUrl::fromLocalFile(dir.filePath(QStringLiteral("disk.img"))).toString());
    view.scanTyped();
    QTRY_COMPARE(done.count(), 2);
    QVERIFY2(done[1][0].toBool(), qPrintable(done[1][1].toString()));
    QCOMPARE(view.current()->children.size(), std::size_t(1));
    QCOMPARE(view.current()->children[0]->name, QStringLiteral("disk.img"));
    QVERIFY(view.imageMap()->isVisible());
    QTRY_COMPARE(loaded.count(), 2);
    QCOMPARE(view.imageMap()->totals().data, std::uint64_t(65536));
    QCOMPARE(view.uriOf(view.current()->children[0].get()),
             QUrl::fromLocalFile(dir.filePath(QStringLiteral("disk.img"))).toString());
}

// Scans saved or opened come back from the Open Scan button's menu; gone files do not.
void TestUsagePage::recentScansListed()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://rec/a.bin"), QByteArray(123, 'a'));
    UsageView view;
    view.setRegistry(registry.get());
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.locationBox()->setEditText(QStringLiteral("memory://rec/"));
    view.scanTyped();
    QTRY_COMPARE(done.count(), 1);
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("first.strata-scan"));
    const QString second = dir.filePath(QStringLiteral("second.strata-scan"));
    QVERIFY(view.saveScan(first));
    QVERIFY(view.saveScan(second));
    QCOMPARE(view.recentScans().mid(0, 2), (QStringList{second, first}));
    QFile::remove(second);
    QCOMPARE(view.recentScans().value(0), first); // a file gone is not offered
    Q_EMIT view.recentScansMenu()->aboutToShow();
    QAction *entry = nullptr;
    for (QAction *a : view.recentScansMenu()->actions())
        if (a->text().startsWith(QStringLiteral("first.strata-scan")))
            entry = a;
    QVERIFY(entry);
    entry->trigger();
    QTRY_COMPARE(done.count(), 2);
    QVERIFY(done[1][0].toBool());
    QCOMPARE(view.current()->bytes, std::uint64_t(123));
    QVERIFY(view.uriOf(view.current()->children[0].get()).isEmpty()); // read from the file
}

} // namespace strata

QTEST_MAIN(strata::TestUsagePage)
#include "test_usage_page.moc"
