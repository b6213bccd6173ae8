// Compare Folders and Synchronize… on the offscreen platform: both panes' rows are marked
// (only here, newer, older, different, differs inside, same) and what either side would
// copy is selected; the sync checklist lists copies, replacements and (unchecked)
// deletions and replacements of newer copies, with totals, and running it does exactly the checked lines through the
// transfer queue and the confined delete. STRATA_SCREENSHOT_DIR=dir saves the picture.
#include "tests/gui/gui_fixture.h"

#include "core/storage/path.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/folder_sync.h"
#include "ui/main_window.h"
#include "ui/transfers/transfer_queue_model.h"

#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

namespace strata {

using namespace gui_test;
using Mark = DirectoryModel::Mark;

class TestCompare : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void compareMarksBothPanes();
    void synchronizeDoesTheCheckedLines();

private:
    BrowserPane *left() const { return m_window->pane(0); }
    BrowserPane *right() const { return m_window->pane(1); }
    void show(BrowserPane *pane, const QString &uri);
    // memory://l and memory://r, made to differ in every way.
    void makeFolders();
    Mark markOf(BrowserPane *pane, const QString &name) const;
    QStringList selected(BrowserPane *pane) const;
    void putAt(const QString &uri, const QByteArray &bytes, std::int64_t mtimeNs);

    std::shared_ptr<Registry> m_registry;
    std::unique_ptr<MainWindow> m_window;
};

void TestCompare::init()
{
    QStandardPaths::setTestModeEnabled(true);
    m_registry = makeRegistry();
    m_window = std::make_unique<MainWindow>(
        *m_registry, [] { return makeRegistry(); }, QueueOptions{});
    m_window->resize(1200, 720);
    m_window->show();
    // Shortcuts reach an active window only: offscreen every window is, under a real X
    // server (xvfb-run, no window manager) it is made so.
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QVERIFY(waitFor([&] { return left()->location().op && right()->location().op; }));
}

void TestCompare::cleanup()
{
    m_window.reset();
    m_registry.reset();
}

void TestCompare::show(BrowserPane *pane, const QString &uri)
{
    pane->openUri(uri);
    QVERIFY(waitFor([&] { return pane->displayUri() == uri && !pane->model()->loading(); }));
}

void TestCompare::putAt(const QString &uri, const QByteArray &bytes, std::int64_t mtimeNs)
{
    auto at = m_registry->open(uri.toStdString());
    QVERIFY(at.ok());
    (void)at->op->createDir(std::string(parentPath(at->path)), true);
    WriteOptions options;
    options.mtimeNs = mtimeNs;
    QVERIFY(
        at->op->writeAll(at->path, std::as_bytes(std::span(bytes.constData(), std::size_t(bytes.size()))), options));
}

void TestCompare::makeFolders()
{
    const std::int64_t day = 86'400'000'000'000, t = 1'750'000'000'000'000'000;
    for (const char *side : {"l", "r"}) {
        const QString root = QStringLiteral("memory://%1/").arg(QLatin1String(side));
        putAt(root + QStringLiteral("same.txt"), "alike", t);
        putAt(root + QStringLiteral("sub/inner.txt"), side == std::string("l") ? "left's" : "right's longer", t);
        putAt(root + QStringLiteral("sub/alike.txt"), "alike", t);
        putAt(root + QStringLiteral("size.txt"), side == std::string("l") ? "12" : "123", t);
    }
    putAt(QStringLiteral("memory://l/newer-left.txt"), "new", t + day);
    putAt(QStringLiteral("memory://r/newer-left.txt"), "old", t);
    putAt(QStringLiteral("memory://l/newer-right.txt"), "old", t);
    putAt(QStringLiteral("memory://r/newer-right.txt"), "new", t + day);
    putAt(QStringLiteral("memory://l/only-left.txt"), "mine", t);
    putAt(QStringLiteral("memory://l/only-left-dir/a.txt"), "mine too", t);
    putAt(QStringLiteral("memory://r/only-right.txt"), "theirs", t);
    show(left(), QStringLiteral("memory://l/"));
    show(right(), QStringLiteral("memory://r/"));
}

Mark TestCompare::markOf(BrowserPane *pane, const QString &name) const
{
    const auto *model = pane->view()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, DirectoryModel::Name).data().toString() == name)
            return Mark(model->index(r, 0).data(DirectoryModel::CompareMarkRole).toInt());
    return Mark::None;
}

QStringList TestCompare::selected(BrowserPane *pane) const
{
    QStringList out;
    for (const auto &e : pane->selectedEntries())
        out << QString::fromStdString(e.name);
    out.sort();
    return out;
}

void TestCompare::compareMarksBothPanes()
{
    makeFolders();
    left()->view()->setFocus();
    QTest::keyClick(m_window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(waitFor([&] { return left()->model()->marked() && right()->model()->marked(); }));
    QCOMPARE(markOf(left(), QStringLiteral("same.txt")), Mark::Same);
    QCOMPARE(markOf(right(), QStringLiteral("same.txt")), Mark::Same);
    QCOMPARE(markOf(left(), QStringLiteral("only-left.txt")), Mark::OnlyHere);
    QCOMPARE(markOf(left(), QStringLiteral("only-left-dir")), Mark::OnlyHere);
    QCOMPARE(markOf(right(), QStringLiteral("only-right.txt")), Mark::OnlyHere);
    QCOMPARE(markOf(left(), QStringLiteral("newer-left.txt")), Mark::NewerHere);
    QCOMPARE(markOf(right(), QStringLiteral("newer-left.txt")), Mark::OlderHere);
    QCOMPARE(markOf(left(), QStringLiteral("newer-right.txt")), Mark::OlderHere);
    QCOMPARE(markOf(right(), QStringLiteral("newer-right.txt")), Mark::NewerHere);
    QCOMPARE(markOf(left(), QStringLiteral("size.txt")), Mark::Different);
    QCOMPARE(markOf(left(), QStringLiteral("sub")), Mark::DiffersInside);
    QCOMPARE(markOf(right(), QStringLiteral("sub")), Mark::DiffersInside);
    // What each side would copy to the other is selected: F6 copies it.
    QCOMPARE(selected(left()),
             (QStringList{QStringLiteral("newer-left.txt"), QStringLiteral("only-left-dir"),
                          QStringLiteral("only-left.txt")}));
    QCOMPARE(selected(right()), (QStringList{QStringLiteral("newer-right.txt"), QStringLiteral("only-right.txt")}));
    const auto tip = [&](BrowserPane *pane, const QString &name) {
        const auto *model = pane->view()->model();
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data().toString() == name)
                return model->index(r, 0).data(Qt::ToolTipRole).toString();
        return QString();
    };
    QVERIFY(tip(left(), QStringLiteral("only-left.txt")).contains(QStringLiteral("Only here")));
    QVERIFY(m_window->statusBar()->currentMessage().contains(QStringLiteral("only on the left 2")));
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/compare.png"));
    // Listing again forgets the marks.
    left()->refresh();
    QVERIFY(waitFor([&] { return !left()->model()->loading(); }));
    QVERIFY(!left()->model()->marked());
    QCOMPARE(markOf(left(), QStringLiteral("only-left.txt")), Mark::None);
}

void TestCompare::synchronizeDoesTheCheckedLines()
{
    makeFolders();
    left()->view()->setFocus(); // the active pane is the source
    QTest::keyClick(m_window.get(), Qt::Key_Y, Qt::ControlModifier | Qt::ShiftModifier);
    SyncDialog *dialog = nullptr;
    QVERIFY(waitFor([&] { return (dialog = m_window->findChild<SyncDialog *>()) && dialog->isVisible(); }));
    QTreeWidget *list = dialog->list();
    QStringList lines;
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        lines << list->topLevelItem(i)->text(0) + QLatin1Char(' ') + list->topLevelItem(i)->text(1)
                + (list->topLevelItem(i)->checkState(0) == Qt::Checked ? QStringLiteral(" [x]")
                                                                       : QStringLiteral(" [ ]"));
    QCOMPARE(
        lines,
        (QStringList{QStringLiteral("Replace newer-left.txt [x]"), QStringLiteral("Replace newer newer-right.txt [ ]"),
                     QStringLiteral("Copy only-left-dir/ [x]"), QStringLiteral("Copy only-left.txt [x]"),
                     QStringLiteral("Delete only-right.txt [ ]"), QStringLiteral("Replace size.txt [x]"),
                     QStringLiteral("Replace sub/inner.txt [x]")}));
    auto *totals = dialog->findChild<QLabel *>(QStringLiteral("syncTotals"));
    QCOMPARE(totals->text(), QStringLiteral("2 to copy (4 bytes), 3 to replace (11 bytes), 0 to delete"));
    // A newer copy is replaced only when asked: checked and unchecked again, it stays.
    list->topLevelItem(1)->setCheckState(0, Qt::Checked);
    QCOMPARE(totals->text(), QStringLiteral("2 to copy (4 bytes), 4 to replace (14 bytes), 0 to delete"));
    list->topLevelItem(1)->setCheckState(0, Qt::Unchecked);
    // Delete what only the right has.
    dialog->findChild<QCheckBox *>(QStringLiteral("syncDelete"))->setChecked(true);
    QCOMPARE(totals->text(), QStringLiteral("2 to copy (4 bytes), 3 to replace (11 bytes), 1 to delete"));
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty())
        dialog->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/synchronize.png"));
    dialog->findChild<QPushButton *>(QStringLiteral("syncRun"))->click();

    QVERIFY(waitFor([&] { return !exists(*m_registry, QStringLiteral("memory://r/only-right.txt")); }, 15000));
    QVERIFY(waitFor([&] { return get(*m_registry, QStringLiteral("memory://r/sub/inner.txt")) == "left's"; }, 15000));
    QVERIFY(waitFor([&] { return get(*m_registry, QStringLiteral("memory://r/only-left-dir/a.txt")) == "mine too"; },
                    15000));
    QVERIFY(waitFor([&] { return get(*m_registry, QStringLiteral("memory://r/only-left.txt")) == "mine"; }, 15000));
    QVERIFY(waitFor([&] { return get(*m_registry, QStringLiteral("memory://r/size.txt")) == "12"; }, 15000));
    QVERIFY(waitFor([&] { return get(*m_registry, QStringLiteral("memory://r/newer-left.txt")) == "new"; }, 15000));
    QCOMPARE(get(*m_registry, QStringLiteral("memory://r/newer-right.txt")), QByteArray("new")); // unchecked: kept
    // Nothing of the left changed.
    QCOMPARE(get(*m_registry, QStringLiteral("memory://l/newer-right.txt")), QByteArray("old"));
    QVERIFY(exists(*m_registry, QStringLiteral("memory://l/only-left.txt")));
}

} // namespace strata

QTEST_MAIN(strata::TestCompare)
#include "test_compare.moc"
