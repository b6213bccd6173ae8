// Search below a folder in the browser (Ctrl+Shift+F) on the offscreen platform: results
// stream in from the walker with their folders, by part of a name, glob, size and age;
// they act as listed entries (drag to the other pane copies, Delete asks and deletes inside
// the folder, Open Containing Folder selects the file there); a slow store never stalls the
// window and Esc stops, then closes. STRATA_SCREENSHOT_DIR=dir saves the picture.
#include "tests/gui/gui_fixture.h"

#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/search_model.h"
#include "ui/main_window.h"
#include "ui/transfers/transfer_queue_model.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

namespace strata {

using namespace gui_test;

class TestSearch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void findsByNameGlobSizeAndAge();
    void resultsActLikeListedEntries();
    void slowStoreStreamsAndStops();
    void namesWithAmpersandsStayWhole();

private:
    BrowserPane *left() const { return m_window->pane(0); }
    BrowserPane *right() const { return m_window->pane(1); }
    void show(BrowserPane *pane, const QString &uri);
    // Types into the search bar of the left pane and waits for the search to end.
    void search(const QString &text, const QString &size = {}, int ageIndex = 0);
    QStringList found() const; // "folder/name" of every result, sorted
    QString banner() const;
    QModelIndex resultNamed(const QString &name) const;
    QWidget *bar() const { return left()->findChild<QWidget *>(QStringLiteral("searchBar")); }

    std::shared_ptr<Registry> m_registry;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;
};

void TestSearch::init()
{
    QStandardPaths::setTestModeEnabled(true);
    m_registry = makeRegistry(std::chrono::milliseconds(40));
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

void TestSearch::cleanup()
{
    m_window.reset();
    m_registry.reset();
}

void TestSearch::show(BrowserPane *pane, const QString &uri)
{
    pane->openUri(uri);
    QVERIFY2(waitFor([&] {
                 return pane->location().op
                     && pane->uriOf(pane->location().path).startsWith(uri.chopped(uri.endsWith(QLatin1Char('/'))))
                     && !pane->model()->loading();
             }),
             qPrintable(pane->uriOf(pane->location().path) + QString::number(pane->model()->loading())));
}

void TestSearch::search(const QString &text, const QString &size, int ageIndex)
{
    left()->view()->setFocus();
    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(bar()->isVisible());
    auto *field = left()->findChild<QLineEdit *>(QStringLiteral("searchText"));
    QCOMPARE(QApplication::focusWidget(), field);
    field->clear();
    QTest::keyClicks(field, text);
    left()->findChild<QLineEdit *>(QStringLiteral("searchSize"))->setText(size);
    left()->findChild<QComboBox *>(QStringLiteral("searchAge"))->setCurrentIndex(ageIndex);
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(waitFor([&] { return !left()->searchModel()->running(); }));
}

QStringList TestSearch::found() const
{
    QStringList out;
    const auto *model = left()->view()->model();
    for (int r = 0; r < model->rowCount(); ++r) {
        const QString folder = model->index(r, SearchModel::Folder).data().toString();
        const QString name = model->index(r, SearchModel::Name).data().toString();
        out << (folder.isEmpty() ? name : folder + QLatin1Char('/') + name);
    }
    out.sort();
    return out;
}

QString TestSearch::banner() const
{
    return left()->findChild<QLabel *>(QStringLiteral("paneBanner"))->text();
}

QModelIndex TestSearch::resultNamed(const QString &name) const
{
    const auto *model = left()->view()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, SearchModel::Name).data().toString() == name)
            return model->index(r, SearchModel::Name);
    return {};
}

void TestSearch::findsByNameGlobSizeAndAge()
{
    const QString root = m_dir.path() + QStringLiteral("/tree");
    QVERIFY(QDir().mkpath(root + QStringLiteral("/a/b")) && QDir().mkpath(root + QStringLiteral("/c")));
    const auto write = [](const QString &path, qint64 bytes) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(bytes));
    };
    write(root + QStringLiteral("/a/photo1.jpg"), 1000);
    write(root + QStringLiteral("/a/b/Photo2.JPG"), 2000);
    write(root + QStringLiteral("/a/b/photos.txt"), 10);
    write(root + QStringLiteral("/c/notes.txt"), 30);
    write(root + QStringLiteral("/big.bin"), 3 << 20);
    QFile old(root + QStringLiteral("/c/notes.txt"));
    QVERIFY(old.open(QIODevice::ReadWrite));
    QVERIFY(old.setFileTime(QDateTime::currentDateTime().addDays(-40), QFileDevice::FileModificationTime));
    old.close();
    show(left(), QUrl::fromLocalFile(root).toString());

    // Part of a name, any case, at any depth; the folder column says where.
    search(QStringLiteral("PHOTO"));
    QCOMPARE(found(),
             (QStringList{QStringLiteral("a/b/Photo2.JPG"), QStringLiteral("a/b/photos.txt"),
                          QStringLiteral("a/photo1.jpg")}));
    QVERIFY2(banner().startsWith(QStringLiteral("3 found below ")), qPrintable(banner()));
    QVERIFY(!left()->findChild<QLineEdit *>(QStringLiteral("filter"))->isVisible()); // it filters listings
    // A glob matches the whole name.
    search(QStringLiteral("*.jpg"));
    QCOMPARE(found(), (QStringList{QStringLiteral("a/b/Photo2.JPG"), QStringLiteral("a/photo1.jpg")}));
    // Sizes as find -size reads them; nothing typed means any name.
    search({}, QStringLiteral("+1M"));
    QCOMPARE(found(), QStringList{QStringLiteral("big.bin")});
    search(QStringLiteral("*.txt"), QStringLiteral("-1k")); // less than 1 KiB (find would say: empty)
    QCOMPARE(found(), (QStringList{QStringLiteral("a/b/photos.txt"), QStringLiteral("c/notes.txt")}));
    // Modified within the past month: the 40-day-old file is left out.
    search(QStringLiteral("*.txt"), {}, 4);
    QCOMPARE(found(), QStringList{QStringLiteral("a/b/photos.txt")});
    // A size that means nothing is said so, and nothing runs.
    left()->findChild<QLineEdit *>(QStringLiteral("searchSize"))->setText(QStringLiteral("10X"));
    QTest::keyClick(left()->findChild<QLineEdit *>(QStringLiteral("searchText")), Qt::Key_Return);
    QVERIFY2(banner().contains(QStringLiteral("+10M")), qPrintable(banner()));
    QVERIFY(!left()->searchModel()->running());
    // Sorting by size puts the largest last.
    left()->findChild<QLineEdit *>(QStringLiteral("searchSize"))->clear();
    search(QStringLiteral("*"));
    left()->view()->sortByColumn(SearchModel::Size, Qt::AscendingOrder);
    const auto *model = left()->view()->model();
    QCOMPARE(model->index(model->rowCount() - 1, SearchModel::Name).data().toString(), QStringLiteral("big.bin"));
    // Esc in the results closes the search: the listing is back, with its filter box.
    left()->view()->setFocus();
    QTest::keyClick(left()->view(), Qt::Key_Escape);
    QVERIFY(!bar()->isVisible());
    QVERIFY(!left()->searching());
    QCOMPARE(left()->view()->model()->rowCount(), 3); // a, c, big.bin
    QVERIFY(left()->findChild<QLineEdit *>(QStringLiteral("filter"))->isVisible());
}

void TestSearch::resultsActLikeListedEntries()
{
    for (const char *path : {"deep/er/est/report.pdf", "deep/other.pdf", "top.txt", "deep/er/keep.txt"})
        put(*m_registry, QStringLiteral("memory://s/") + QLatin1String(path), "pdf bytes");
    put(*m_registry, QStringLiteral("memory://out/.keep"), "");
    show(left(), QStringLiteral("memory://s/"));
    show(right(), QStringLiteral("memory://out/"));
    search(QStringLiteral(".pdf"));
    QCOMPARE(found(), (QStringList{QStringLiteral("deep/er/est/report.pdf"), QStringLiteral("deep/other.pdf")}));

    // A drag carries the results' own URIs; dropped on the other pane, they are copied.
    const QModelIndex report = resultNamed(QStringLiteral("report.pdf"));
    std::unique_ptr<QMimeData> mime(left()->view()->model()->mimeData({report}));
    QVERIFY(mime);
    QCOMPARE(QString::fromUtf8(mime->data(QString::fromLatin1(DirectoryModel::UriListMime))),
             QStringLiteral("memory://s/deep/er/est/report.pdf"));
    QVERIFY(right()->view()->model()->canDropMimeData(mime.get(), Qt::CopyAction, -1, -1, {}));
    right()->view()->model()->dropMimeData(mime.get(), Qt::CopyAction, -1, -1, {});
    QVERIFY(waitFor([&] { return exists(*m_registry, QStringLiteral("memory://out/report.pdf")); }, 15000));

    // Delete asks, then deletes that result only, inside the searched folder.
    left()->view()->setFocus();
    left()->view()->selectionModel()->setCurrentIndex(left()->view()->model()->index(report.row(), 0),
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(left()->selectedEntries().size(), std::size_t(1));
    QCOMPARE(left()->selectedEntries().front().path, std::string("/deep/er/est/report.pdf"));
    QTest::keyClick(m_window.get(), Qt::Key_Delete);
    QMessageBox *ask = nullptr;
    QVERIFY(waitFor([&] {
        for (QWidget *w : QApplication::topLevelWidgets())
            if (auto *box = qobject_cast<QMessageBox *>(w);
                box && box->objectName() == QLatin1String("deleteDialog") && box->isVisible())
                ask = box;
        return ask != nullptr;
    }));
    QVERIFY(ask->informativeText().contains(QStringLiteral("report.pdf")));
    for (auto *button : ask->buttons())
        if (ask->buttonRole(button) == QMessageBox::DestructiveRole)
            button->click();
    QVERIFY(waitFor([&] { return !exists(*m_registry, QStringLiteral("memory://s/deep/er/est/report.pdf")); }));
    QVERIFY(exists(*m_registry, QStringLiteral("memory://s/deep/other.pdf")));
    // The search runs again: the deleted file is gone from the results.
    QVERIFY(waitFor(
        [&] { return !left()->searchModel()->running() && found() == QStringList{QStringLiteral("deep/other.pdf")}; }));

    // Open Containing Folder: the folder is listed with the file selected.
    const QModelIndex other = resultNamed(QStringLiteral("other.pdf"));
    left()->view()->selectionModel()->setCurrentIndex(other,
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(left()->selectedEntries().size(), std::size_t(1));
    QApplication::setActiveWindow(m_window.get()); // the delete dialog had it
    left()->view()->setFocus();
    QTest::keyClick(left()->view(), Qt::Key_O, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY2(waitFor([&] {
                 return left()->displayUri() == QStringLiteral("memory://s/deep") && !left()->model()->loading()
                     && left()->selectedEntries().size() == 1;
             }),
             qPrintable(left()->displayUri() + QString::number(left()->selectedEntries().size())
                        + QString::number(left()->searching())));
    QVERIFY(!left()->searching() && !bar()->isVisible());
    QCOMPARE(left()->selectedEntries().front().name, std::string("other.pdf"));
}

void TestSearch::slowStoreStreamsAndStops()
{
    // A chain 30 folders deep on a store whose every call takes 40 ms: over a second to walk.
    QString chain = QStringLiteral("slow://deep");
    for (int depth = 0; depth < 30; ++depth) {
        chain += QStringLiteral("/level%1").arg(depth);
        put(*m_registry, chain + QStringLiteral("/match-%1.log").arg(depth), "x");
        put(*m_registry, chain + QStringLiteral("/other-%1.dat").arg(depth), "y");
    }
    left()->openUri(QStringLiteral("slow://deep/"));
    QVERIFY(waitFor([&] { // the slow store wraps a memory store: its URIs say memory://
        return left()->location().path == "/" && left()->uriOf("/").endsWith(QStringLiteral("://deep/"))
            && !left()->model()->loading();
    }));
    StallMeter meter(10);
    meter.start();
    search(QStringLiteral("match"));
    meter.stop();
    QCOMPARE(found().size(), 30);
    QVERIFY2(meter.longest() < 100, qPrintable(QStringLiteral("the window stalled %1 ms").arg(meter.longest())));

    // Results arrive while the walk runs, and Esc stops it there.
    auto *field = left()->findChild<QLineEdit *>(QStringLiteral("searchText"));
    field->setFocus();
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(left()->searchModel()->running());
    QVERIFY(waitFor([&] { return left()->view()->model()->rowCount() >= 3; }));
    QVERIFY(left()->searchModel()->running());
    QTest::keyClick(field, Qt::Key_Escape);
    QVERIFY(waitFor([&] { return !left()->searchModel()->running(); }));
    const int kept = left()->view()->model()->rowCount();
    QVERIFY2(kept < 30, qPrintable(QString::number(kept)));
    QVERIFY2(banner().contains(QStringLiteral("stopped")), qPrintable(banner()));
    QVERIFY(bar()->isVisible()); // the first Esc stops, the second closes
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty()) {
        search(QStringLiteral("*.log"));
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/search.png"));
    }
    QTest::keyClick(field, Qt::Key_Escape);
    QVERIFY(!bar()->isVisible());
    QVERIFY(!left()->searching());
}

// A folder named "R&D": its crumb reads "R&D", not "RD" with D underlined.
void TestSearch::namesWithAmpersandsStayWhole()
{
    put(*m_registry, QStringLiteral("memory://amp/R&D/plan.txt"), "x");
    show(left(), QStringLiteral("memory://amp/R&D"));
    QStringList crumbs;
    for (auto *button : left()->findChildren<QToolButton *>())
        if (button->isVisible())
            crumbs << button->text();
    QVERIFY2(crumbs.contains(QStringLiteral("R&&D")), qPrintable(crumbs.join(QLatin1Char('|'))));
    search(QStringLiteral("plan"));
    QCOMPARE(found(), QStringList{QStringLiteral("plan.txt")});
}

} // namespace strata

QTEST_MAIN(strata::TestSearch)
#include "test_search.moc"
