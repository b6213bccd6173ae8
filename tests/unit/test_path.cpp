// Backend paths: normalisation (nothing climbs above the root) and the segment helpers.
#include "tests/unit/unit_checks.h"

#include "core/storage/path.h"
#include "core/storage/printable.h"

#include <QTest>

namespace strata {

class TestPath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void normalizes_data();
    void normalizes();
    void refuses_data();
    void refuses();
    void normalizedPathIsStable();
    void isNormalPath_data();
    void isNormalPath();
    void joinPath_data();
    void joinPath();
    void parentPath_data();
    void parentPath();
    void baseName_data();
    void baseName();
    void parentAndBaseNameRebuildThePath();
    void isValidName_data();
    void isValidName();
    void isValidRelativePath_data();
    void isValidRelativePath();
    void isStrictlyBelow_data();
    void isStrictlyBelow();
    void printable_data();
    void printable();
};

void TestPath::normalizes_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("dots and slashes") << QByteArray("/a/./b//c/") << QByteArray("/a/b/c");
    QTest::newRow("empty") << QByteArray("") << QByteArray("/");
    QTest::newRow("root") << QByteArray("/") << QByteArray("/");
    QTest::newRow("many slashes") << QByteArray("///") << QByteArray("/");
    QTest::newRow("dot") << QByteArray("/./.") << QByteArray("/");
    QTest::newRow("relative") << QByteArray("a/b") << QByteArray("/a/b");
    QTest::newRow("dotdot") << QByteArray("/a/../b") << QByteArray("/b");
    QTest::newRow("dotdot at end") << QByteArray("/a/b/..") << QByteArray("/a");
    QTest::newRow("back to root") << QByteArray("/a/..") << QByteArray("/");
    QTest::newRow("two up") << QByteArray("/a/b/../../c") << QByteArray("/c");
    QTest::newRow("dotted names are names") << QByteArray("/..a/b../.c/...") << QByteArray("/..a/b../.c/...");
    QTest::newRow("spaces kept") << QByteArray("/ a /b c") << QByteArray("/ a /b c");
    QTest::newRow("unicode kept") << QByteArray("/über/日本") << QByteArray("/über/日本");
    QTest::newRow("trailing slash") << QByteArray("/docs/") << QByteArray("/docs");
}

void TestPath::normalizes()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    auto normal = normalizePath(view(input));
    REQUIRE_OK(normal);
    QCOMPARE(*normal, std::string(view(expected)));
}

void TestPath::refuses_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("root parent") << QByteArray("/..");
    QTest::newRow("relative parent") << QByteArray("..");
    QTest::newRow("climbs after descent") << QByteArray("/a/../../b");
    QTest::newRow("climbs deep") << QByteArray("/a/b/../../../etc/passwd");
    QTest::newRow("dot then up") << QByteArray("/./../x");
    QTest::newRow("embedded NUL") << QByteArray("/a\0b", 4);
    QTest::newRow("trailing NUL") << QByteArray("/a\0", 3);
}

void TestPath::refuses()
{
    QFETCH(QByteArray, input);
    auto normal = normalizePath(view(input));
    QVERIFY2(!normal.ok(), normal.ok() ? normal->c_str() : "");
    QCOMPARE(normal.error().kind(), ErrorKind::InvalidInput);
    QVERIFY(!normal.error().cause().empty());
}

void TestPath::normalizedPathIsStable()
{
    for (std::string_view p : {"/a/./b//c/", "x/../y/z/", "/", "/a b/c"}) {
        auto once = normalizePath(p);
        REQUIRE_OK(once);
        auto twice = normalizePath(*once);
        REQUIRE_OK(twice);
        QCOMPARE(*twice, *once);
        QVERIFY(once->starts_with('/'));
        QVERIFY(*once == "/" || !once->ends_with('/'));
    }
}

void TestPath::isNormalPath_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("normal");
    QTest::newRow("root") << QByteArray("/") << true;
    QTest::newRow("top level") << QByteArray("/a") << true;
    QTest::newRow("nested with spaces") << QByteArray("/a b/c") << true;
    QTest::newRow("dotted names") << QByteArray("/..a/.b/c..") << true;
    QTest::newRow("empty") << QByteArray("") << false;
    QTest::newRow("relative") << QByteArray("a/b") << false;
    QTest::newRow("trailing slash") << QByteArray("/a/") << false;
    QTest::newRow("double slash at start") << QByteArray("//a") << false;
    QTest::newRow("double slash inside") << QByteArray("/a//b") << false;
    QTest::newRow("dot") << QByteArray("/./a") << false;
    QTest::newRow("dot at end") << QByteArray("/a/.") << false;
    QTest::newRow("dotdot at root") << QByteArray("/..") << false;
    QTest::newRow("dotdot inside") << QByteArray("/a/../b") << false;
    QTest::newRow("dotdot at end") << QByteArray("/a/..") << false;
    QTest::newRow("NUL") << QByteArray("/a\0b", 4) << false;
}

void TestPath::isNormalPath()
{
    QFETCH(QByteArray, path);
    QFETCH(bool, normal);
    // Operator skips normalising what this accepts: accepting ".." would let it through.
    QCOMPARE(strata::isNormalPath(view(path)), normal);
    auto normalized = normalizePath(view(path));
    QCOMPARE(normalized.ok() && *normalized == std::string(view(path)), normal);
}

void TestPath::joinPath_data()
{
    QTest::addColumn<QByteArray>("dir");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("root") << QByteArray("/") << QByteArray("a") << QByteArray("/a");
    QTest::newRow("nested") << QByteArray("/a/b") << QByteArray("c") << QByteArray("/a/b/c");
    QTest::newRow("dir with slash") << QByteArray("/a/") << QByteArray("c") << QByteArray("/a/c");
    QTest::newRow("empty dir") << QByteArray("") << QByteArray("c") << QByteArray("/c");
    QTest::newRow("name with space") << QByteArray("/d") << QByteArray("x y.txt") << QByteArray("/d/x y.txt");
}

void TestPath::joinPath()
{
    QFETCH(QByteArray, dir);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, expected);
    QCOMPARE(strata::joinPath(view(dir), view(name)), std::string(view(expected)));
}

void TestPath::parentPath_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("deep") << QByteArray("/a/b/c") << QByteArray("/a/b");
    QTest::newRow("top level") << QByteArray("/a") << QByteArray("/");
    QTest::newRow("root") << QByteArray("/") << QByteArray("/");
    QTest::newRow("dotted") << QByteArray("/a.b/c.d") << QByteArray("/a.b");
}

void TestPath::parentPath()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, expected);
    QCOMPARE(strata::parentPath(view(path)), view(expected));
}

void TestPath::baseName_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("deep") << QByteArray("/a/b/c") << QByteArray("c");
    QTest::newRow("top level") << QByteArray("/a") << QByteArray("a");
    QTest::newRow("root") << QByteArray("/") << QByteArray("");
    QTest::newRow("bare name") << QByteArray("name") << QByteArray("name");
    QTest::newRow("extension") << QByteArray("/d/archive.tar.gz") << QByteArray("archive.tar.gz");
}

void TestPath::baseName()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, expected);
    QCOMPARE(strata::baseName(view(path)), view(expected));
}

void TestPath::parentAndBaseNameRebuildThePath()
{
    for (std::string_view p : {"/a", "/a/b", "/x y/ü/z.txt", "/.hidden/..x"})
        QCOMPARE(strata::joinPath(strata::parentPath(p), strata::baseName(p)), std::string(p));
}

void TestPath::isValidName_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("plain") << QByteArray("a") << true;
    QTest::newRow("spaces") << QByteArray("a b") << true;
    QTest::newRow("hidden") << QByteArray(".hidden") << true;
    QTest::newRow("dotdot prefix") << QByteArray("..x") << true;
    QTest::newRow("three dots") << QByteArray("...") << true;
    QTest::newRow("unicode") << QByteArray("é – 日本") << true;
    QTest::newRow("symbols") << QByteArray("#%?&") << true;
    QTest::newRow("empty") << QByteArray("") << false;
    QTest::newRow("dot") << QByteArray(".") << false;
    QTest::newRow("dotdot") << QByteArray("..") << false;
    QTest::newRow("slash inside") << QByteArray("a/b") << false;
    QTest::newRow("slash only") << QByteArray("/") << false;
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << false;
}

void TestPath::isValidName()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, valid);
    QCOMPARE(strata::isValidName(view(name)), valid);
}

void TestPath::isValidRelativePath_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<bool>("valid");
    QTest::newRow("one name") << QByteArray("a") << true;
    QTest::newRow("two names") << QByteArray("a/b") << true;
    QTest::newRow("dot names") << QByteArray(".a/..b/...") << true;
    QTest::newRow("empty") << QByteArray("") << false;
    QTest::newRow("double slash") << QByteArray("a//b") << false;
    QTest::newRow("leading slash") << QByteArray("/a") << false;
    QTest::newRow("trailing slash") << QByteArray("a/") << false;
    QTest::newRow("dot") << QByteArray("a/./b") << false;
    QTest::newRow("dot-dot") << QByteArray("a/../b") << false;
    QTest::newRow("only dot-dot") << QByteArray("..") << false;
    QTest::newRow("NUL") << QByteArray("a/b\0c", 5) << false;
}

void TestPath::isValidRelativePath()
{
    QFETCH(QByteArray, rel);
    QFETCH(bool, valid);
    QCOMPARE(strata::isValidRelativePath(view(rel)), valid);
}

void TestPath::isStrictlyBelow_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("dir");
    QTest::addColumn<bool>("below");
    QTest::newRow("child") << QByteArray("/a/b") << QByteArray("/a") << true;
    QTest::newRow("grandchild") << QByteArray("/a/b/c") << QByteArray("/a") << true;
    QTest::newRow("child of the root") << QByteArray("/a") << QByteArray("/") << true;
    QTest::newRow("itself") << QByteArray("/a") << QByteArray("/a") << false;
    QTest::newRow("the root itself") << QByteArray("/") << QByteArray("/") << false;
    QTest::newRow("sibling sharing a prefix") << QByteArray("/ab") << QByteArray("/a") << false;
    QTest::newRow("parent") << QByteArray("/") << QByteArray("/a") << false;
    QTest::newRow("not normal: dot-dot") << QByteArray("/a/..") << QByteArray("/a") << false;
    QTest::newRow("not normal: empty segment") << QByteArray("/a//b") << QByteArray("/a") << false;
    QTest::newRow("not normal: trailing slash") << QByteArray("/a/") << QByteArray("/a") << false;
}

void TestPath::isStrictlyBelow()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, dir);
    QFETCH(bool, below);
    QCOMPARE(strata::isStrictlyBelow(view(path), view(dir)), below);
}

void TestPath::printable_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("shown");
    QTest::newRow("plain") << QByteArray("report 2026.txt") << QByteArray("report 2026.txt");
    QTest::newRow("UTF-8 kept") << QByteArray("caf\xc3\xa9 \xe2\x82\xac") << QByteArray("caf\xc3\xa9 \xe2\x82\xac");
    QTest::newRow("escape sequence") << QByteArray("a\x1b[2Jb") << QByteArray("a\\x1b[2Jb");
    QTest::newRow("newline, CR, tab") << QByteArray("a\nb\rc\td") << QByteArray("a\\nb\\rc\\td");
    QTest::newRow("DEL") << QByteArray("a\x7f") << QByteArray("a\\x7f");
    QTest::newRow("C1 control (CSI as UTF-8)") << QByteArray("a\xc2\x9b"
                                                             "31m")
                                               << QByteArray("a\\xc2\\x9b"
                                                             "31m");
    QTest::newRow("not UTF-8") << QByteArray("a\xff\xfe") << QByteArray("a\\xff\\xfe");
    QTest::newRow("cut UTF-8") << QByteArray("a\xe2\x82") << QByteArray("a\\xe2\\x82");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QByteArray("\\xc0\\xaf");
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << QByteArray("a\\x00b");
    // Invisible characters that reorder or break text: shown, not obeyed (issue 42).
    QTest::newRow("right-to-left override") << QByteArray("invoice\xe2\x80\xae"
                                                          "fdp.exe")
                                            << QByteArray("invoice\\u202efdp.exe");
    QTest::newRow("embeddings and isolates") << QByteArray(
        "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9")
                                             << QByteArray("\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069");
    QTest::newRow("marks") << QByteArray("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c") << QByteArray("\\u200e\\u200f\\u061c");
    QTest::newRow("line and paragraph separators") << QByteArray("a\xe2\x80\xa8"
                                                                 "b\xe2\x80\xa9")
                                                   << QByteArray("a\\u2028b\\u2029");
    QTest::newRow("neighbours kept") << QByteArray("\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa")
                                     << QByteArray("\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
}

void TestPath::printable()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, shown);
    QCOMPARE(QByteArray::fromStdString(strata::printable(view(text))), shown);
    QCOMPARE(strata::isPrintable(view(text)), text == shown);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestPath)
#include "test_path.moc"
