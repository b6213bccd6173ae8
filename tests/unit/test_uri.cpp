// Uri parsing, printing and redaction; percent-encoding; hostile input.
#include "tests/unit/unit_checks.h"

#include "core/storage/path.h"
#include "core/storage/uri.h"

#include <QTest>

namespace strata {

namespace {

Uri parsed(std::string_view text)
{
    auto uri = Uri::parse(text);
    if (!uri) {
        qWarning("parse failed: %s", uri.error().message().c_str());
        return {};
    }
    return *uri;
}

} // namespace

class TestUri : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void schemeIsCaseInsensitive_data();
    void schemeIsCaseInsensitive();
    void authorityWithPort();
    void ipv6HostWithPort();
    void missingPathWithAuthorityIsRoot();
    void fileUriForms();
    void userInfoNeverInRedacted();
    void passwordWithAtSign();
    void secretQueryValuesRedacted_data();
    void secretQueryValuesRedacted();
    void queryValues();
    void childAndFolderKeepTheQuery_data();
    void childAndFolderKeepTheQuery();
    void bareAbsolutePathIsVerbatimFile();
    void roundTripOfNames_data();
    void roundTripOfNames();
    void percentEncodeSets();
    void percentDecodeValid();
    void percentDecodeHostile_data();
    void percentDecodeHostile();
    void percentDecodeLenient();
    void namesAsPeopleTypeThem_data();
    void namesAsPeopleTypeThem();
    void hostileInputs_data();
    void hostileInputs();
    void errorsNeverShowSecrets_data();
    void errorsNeverShowSecrets();
};

void TestUri::schemeIsCaseInsensitive_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("lower") << QByteArray("memory://demo/x");
    QTest::newRow("upper") << QByteArray("MEMORY://demo/x");
    QTest::newRow("mixed") << QByteArray("MeMoRy://demo/x");
}

void TestUri::schemeIsCaseInsensitive()
{
    QFETCH(QByteArray, text);
    auto uri = Uri::parse(view(text));
    REQUIRE_OK(uri);
    QCOMPARE(uri->scheme(), std::string("memory"));
    QCOMPARE(uri->host(), std::string("demo"));
    QCOMPARE(uri->path(), std::string("/x"));
    QCOMPARE(uri->toString(), std::string("memory://demo/x"));
}

void TestUri::authorityWithPort()
{
    Uri uri = parsed("webdav://files.example.com:8443/dav/Team%20Docs/");
    QCOMPARE(uri.scheme(), std::string("webdav"));
    QVERIFY(uri.hasAuthority());
    QCOMPARE(uri.host(), std::string("files.example.com"));
    QVERIFY(uri.port().has_value());
    QCOMPARE(int(*uri.port()), 8443);
    QCOMPARE(uri.path(), std::string("/dav/Team Docs/"));
    QVERIFY(!uri.hasUserInfo());
    QCOMPARE(uri.toString(), std::string("webdav://files.example.com:8443/dav/Team%20Docs/"));

    Uri noPort = parsed("webdav://files.example.com/x");
    QVERIFY(!noPort.port().has_value());
    QCOMPARE(int(*parsed("nbd://h:65535/e").port()), 65535);
    QCOMPARE(int(*parsed("nbd://h:1/e").port()), 1);
}

void TestUri::ipv6HostWithPort()
{
    Uri uri = parsed("nbd://[::1]:8080/export");
    QCOMPARE(uri.host(), std::string("[::1]"));
    QVERIFY(uri.port().has_value());
    QCOMPARE(int(*uri.port()), 8080);
    QCOMPARE(uri.path(), std::string("/export"));
    QCOMPARE(uri.toString(), std::string("nbd://[::1]:8080/export"));

    Uri withUser = parsed("nbd://user:pw@[::1]:10809/e");
    QCOMPARE(withUser.host(), std::string("[::1]"));
    QCOMPARE(int(*withUser.port()), 10809);
    QCOMPARE(withUser.redacted(), std::string("nbd://REDACTED@[::1]:10809/e"));

    Uri noPort = parsed("nbd://[fe80::1]/export");
    QCOMPARE(noPort.host(), std::string("[fe80::1]"));
    QVERIFY(!noPort.port().has_value());
}

void TestUri::missingPathWithAuthorityIsRoot()
{
    QCOMPARE(parsed("memory://demo").path(), std::string("/"));
    QCOMPARE(parsed("s3://bucket?region=x").path(), std::string("/"));
    QCOMPARE(parsed("s3://bucket?region=x").queryValue("region"), std::optional<std::string>("x"));
}

void TestUri::fileUriForms()
{
    Uri three = parsed("file:///tmp/x");
    QCOMPARE(three.scheme(), std::string("file"));
    QVERIFY(three.hasAuthority());
    QCOMPARE(three.host(), std::string());
    QCOMPARE(three.path(), std::string("/tmp/x"));

    Uri one = parsed("file:/tmp/x");
    QVERIFY(!one.hasAuthority());
    QCOMPARE(one.path(), std::string("/tmp/x"));
}

void TestUri::userInfoNeverInRedacted()
{
    Uri uri = parsed("webdav://alice:s3cr3tpw@dav.example.com:8443/dir/f.txt");
    QVERIFY(uri.hasUserInfo());
    QCOMPARE(uri.userInfo(), std::string("alice:s3cr3tpw"));
    QCOMPARE(uri.host(), std::string("dav.example.com"));
    QCOMPARE(int(*uri.port()), 8443);

    const std::string shown = uri.redacted();
    QCOMPARE(shown, std::string("webdav://REDACTED@dav.example.com:8443/dir/f.txt"));
    QVERIFY(shown.find("s3cr3tpw") == std::string::npos);
    QVERIFY(shown.find("alice") == std::string::npos);
    // toString is for libraries and keeps the credentials.
    QVERIFY(uri.toString().find("alice:s3cr3tpw@") != std::string::npos);
}

void TestUri::passwordWithAtSign()
{
    // The last '@' ends the userinfo: a password may contain '@'.
    Uri uri = parsed("s3://AKIA:p@ssw0rd@bucket/key");
    QCOMPARE(uri.userInfo(), std::string("AKIA:p@ssw0rd"));
    QCOMPARE(uri.host(), std::string("bucket"));
    QCOMPARE(uri.path(), std::string("/key"));
    QVERIFY(uri.redacted().find("ssw0rd") == std::string::npos);
    // A URL in a query value (s3's ?endpoint=) loses its user-info too, even a mangled one.
    Uri endpoint = parsed("s3://bucket/?endpoint=http://AKIA:pw%2Fwith%2Fslash%40x@127.0.0.1:9000");
    QCOMPARE(endpoint.redacted(), std::string("s3://bucket/?endpoint=http://REDACTED@127.0.0.1:9000"));
}

void TestUri::secretQueryValuesRedacted_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::newRow("secret") << QByteArray("secret");
    QTest::newRow("token") << QByteArray("token");
    QTest::newRow("password") << QByteArray("password");
    QTest::newRow("X-Amz-Signature") << QByteArray("X-Amz-Signature");
    QTest::newRow("X-Amz-Credential") << QByteArray("X-Amz-Credential");
    QTest::newRow("Upper-case") << QByteArray("PASSWORD");
}

void TestUri::secretQueryValuesRedacted()
{
    QFETCH(QByteArray, key);
    const std::string k(view(key));
    QVERIFY(isSecretQueryKey(k));
    const std::string text =
        "s3://bucket/dir/key?region=eu-west-1&" + k + "=Hidden%2FValue123&endpoint=http://127.0.0.1:9000";
    Uri uri = parsed(text);
    // The value is still there for the code that needs it...
    QCOMPARE(uri.queryValue(k), std::optional<std::string>("Hidden/Value123"));
    QVERIFY(uri.toString().find("Hidden") != std::string::npos);
    // ...but never where people can see it; the harmless parameters stay readable.
    const std::string shown = uri.redacted();
    QVERIFY2(shown.find("Hidden") == std::string::npos, shown.c_str());
    QVERIFY2(shown.find("Value123") == std::string::npos, shown.c_str());
    QVERIFY2(shown.find(k + "=REDACTED") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("region=eu-west-1") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("endpoint=http://127.0.0.1:9000") != std::string::npos, shown.c_str());
    QVERIFY(!isSecretQueryKey("region"));
    QVERIFY(!isSecretQueryKey("endpoint"));
    // An empty secret is shown as it was written: "=REDACTED" would claim a value, and
    // (found by fuzz_uri) its '=' could spell a password made of '=' and the key's letters.
    Uri bare = parsed("s3://x:n=@bucket/?" + k + "&" + k + "2=");
    QCOMPARE(bare.redacted(), "s3://REDACTED@bucket/?" + k + "&" + k + "2");
    QVERIFY(bare.redacted().find("n=") == std::string::npos);
}

void TestUri::queryValues()
{
    Uri uri = parsed("nbd+unix:///export?socket=/run/nbd%20sock&empty=&flag&x=a%26b%3Dc");
    QCOMPARE(uri.scheme(), std::string("nbd+unix"));
    QCOMPARE(uri.path(), std::string("/export"));
    QCOMPARE(uri.queryValue("socket"), std::optional<std::string>("/run/nbd sock"));
    QCOMPARE(uri.queryValue("empty"), std::optional<std::string>(""));
    QCOMPARE(uri.queryValue("flag"), std::optional<std::string>(""));
    QCOMPARE(uri.queryValue("x"), std::optional<std::string>("a&b=c"));
    QVERIFY(!uri.queryValue("missing").has_value());
    QVERIFY(!uri.queryValue("SOCKET").has_value()); // keys are case-sensitive
    QCOMPARE(int(uri.query().size()), 4);
    // An encoded '&' or '=' in a value survives printing and parsing again.
    QCOMPARE(parsed(uri.toString()).queryValue("x"), std::optional<std::string>("a&b=c"));
}

// A name joined to a connection's URI goes into the path, whatever it holds; the options
// stay as they were (appending text to the printed URI made "?identity=/k/key/").
void TestUri::childAndFolderKeepTheQuery_data()
{
    QTest::addColumn<QByteArray>("folder");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("childPath");
    QTest::newRow("sftp key file") << QByteArray("sftp://me@127.0.0.1:2222/upload?identity=/home/me/.ssh/id_ed25519")
                                   << QByteArray("a.txt") << QByteArray("/upload/a.txt");
    QTest::newRow("s3 endpoint and region")
        << QByteArray("s3://bucket/?endpoint=http://127.0.0.1:4569&region=eu-west-1") << QByteArray("b.bin")
        << QByteArray("/b.bin");
    QTest::newRow("webdav options") << QByteArray("webdav://[::1]:8080/dav/?insecure=1&timeout=20") << QByteArray("c")
                                    << QByteArray("/dav/c");
    QTest::newRow("hostile name") << QByteArray("sftp://h/~/in?identity=/k%20ey%25#1")
                                  << QByteArray("50% #1 ?x=y&z %41 \xc3\xa9t\xc3\xa9.txt")
                                  << QByteArray("/~/in/50% #1 ?x=y&z %41 \xc3\xa9t\xc3\xa9.txt");
    QTest::newRow("root") << QByteArray("memory://demo") << QByteArray("x") << QByteArray("/x");
    QTest::newRow("file with '#' in the folder")
        << QByteArray("/tmp/a#b") << QByteArray("c%d") << QByteArray("/tmp/a#b/c%d");
}

void TestUri::childAndFolderKeepTheQuery()
{
    QFETCH(QByteArray, folder);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, childPath);
    const Uri dir = parsed(view(folder));
    QVERIFY(!dir.scheme().empty());
    const Uri child = dir.child(view(name));
    QCOMPARE(child.path(), std::string(view(childPath)));
    QCOMPARE(child.query(), dir.query());
    QCOMPARE(child.withPath(dir.path()), dir);
    // Printed and parsed again (as a transfer job keeps it): the same name, the same options.
    const Uri back = parsed(child.toString());
    QCOMPARE(back, child);
    QCOMPARE(std::string(baseName(back.path())), std::string(view(name)));

    const Uri into = dir.asFolder();
    QVERIFY(into.path().ends_with('/'));
    QCOMPARE(into.query(), dir.query());
    QCOMPARE(into.asFolder(), into);
    QCOMPARE(parsed(into.toString()), into);
    QCOMPARE(into.child(view(name)), child);
}

void TestUri::bareAbsolutePathIsVerbatimFile()
{
    const std::string path = "/tmp/a b#c?d";
    Uri uri = parsed(path);
    QCOMPARE(uri.scheme(), std::string("file"));
    QCOMPARE(uri.path(), path);
    QVERIFY(uri.query().empty());
    // Nothing in a bare path is decoded either.
    QCOMPARE(parsed("/tmp/100%25").path(), std::string("/tmp/100%25"));
    // Printed and parsed again, it names the same file.
    QCOMPARE(parsed(uri.toString()).path(), path);
    QCOMPARE(uri.toString(), std::string("file:///tmp/a%20b%23c%3Fd"));
}

void TestUri::roundTripOfNames_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("spaces") << QByteArray("a b  c");
    QTest::newRow("unicode") << QByteArray("notes – ünïcødé 日本.txt");
    QTest::newRow("percent") << QByteArray("100% sure %41");
    QTest::newRow("hash") << QByteArray("a#b");
    QTest::newRow("question") << QByteArray("what?x=1&y");
    QTest::newRow("plus and semicolon") << QByteArray("a+b;c=d");
    QTest::newRow("at and colon") << QByteArray("user@host:1");
    QTest::newRow("newline") << QByteArray("line\nbreak");
    QTest::newRow("brackets") << QByteArray("[x]{y}<z>");
    // Bytes that are no UTF-8 are encoded, so the text is UTF-8 (JSON can carry it) and
    // a stray byte never reads back as its U+FFFD twin (issue 42).
    QTest::newRow("stray byte") << QByteArray("old\xff.log");
    QTest::newRow("U+FFFD") << QByteArray("old\xef\xbf\xbd.log");
    QTest::newRow("cut short") << QByteArray("a\xc3");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80");
    QTest::newRow("right-to-left override") << QByteArray("\xe2\x80\xaetxt.exe");
}

void TestUri::roundTripOfNames()
{
    QFETCH(QByteArray, name);
    const std::string path = "/dir/" + std::string(view(name));

    const std::string fileText = Uri::fromLocalPath(path).toString();
    QCOMPARE(QString::fromUtf8(fileText).toUtf8(), QByteArray::fromStdString(fileText));
    auto file = Uri::parse(fileText);
    REQUIRE_OK(file);
    QCOMPARE(file->path(), path);
    QCOMPARE(file->scheme(), std::string("file"));

    Uri memory;
    memory.setScheme("memory");
    memory.setHost("demo");
    memory.setPath(path);
    memory.setQuery({{"note", std::string(view(name))}});
    auto back = Uri::parse(memory.toString());
    REQUIRE_OK(back);
    QCOMPARE(back->path(), path);
    QCOMPARE(back->host(), std::string("demo"));
    QCOMPARE(back->queryValue("note"), std::optional<std::string>(std::string(view(name))));
    QVERIFY(*back == memory);
    // The redacted form of a URI without secrets is the same URI.
    QCOMPARE(memory.redacted(), memory.toString());
    // Every remote scheme reads its printed form back to the same bytes.
    for (const char *scheme : {"s3", "sftp", "webdav", "webdavs", "ftp", "ftps"}) {
        Uri remote = memory;
        remote.setScheme(scheme);
        const std::string text = remote.redacted();
        QCOMPARE(QString::fromUtf8(text).toUtf8(), QByteArray::fromStdString(text));
        auto parsed = Uri::parse(text);
        REQUIRE_OK(parsed);
        QCOMPARE(parsed->path(), path);
    }

    auto decoded = percentDecode(percentEncode(std::string(view(name))));
    REQUIRE_OK(decoded);
    QCOMPARE(*decoded, std::string(view(name)));
}

void TestUri::percentEncodeSets()
{
    QCOMPARE(percentEncode("AZaz09-._~"), std::string("AZaz09-._~"));
    QCOMPARE(percentEncode("a b/c"), std::string("a%20b%2Fc"));
    QCOMPARE(percentEncode("a b/c", "/"), std::string("a%20b/c"));
    QCOMPARE(percentEncode("%"), std::string("%25"));
    QCOMPARE(percentEncode("é"), std::string("%C3%A9"));
    QCOMPARE(percentEncode("é", {}, true), std::string("é"));
    QCOMPARE(percentEncode("old\xff.log", {}, true), std::string("old%FF.log"));
    QCOMPARE(percentEncode("old\xef\xbf\xbd.log", {}, true), std::string("old\xef\xbf\xbd.log"));
    QCOMPARE(percentEncode("\xc3(", {}, true), std::string("%C3%28"));
    QCOMPARE(percentEncode(std::string_view("\x01\x7f", 2)), std::string("%01%7F"));
    QCOMPARE(percentEncode(""), std::string());
}

void TestUri::percentDecodeValid()
{
    QCOMPARE(*percentDecode("%41%42c"), std::string("ABc"));
    QCOMPARE(*percentDecode("%e2%82%ac"), std::string("€"));
    QCOMPARE(*percentDecode("%E2%82%AC"), std::string("€"));
    QCOMPARE(*percentDecode("a+b"), std::string("a+b"));   // '+' is not a space in paths
    QCOMPARE(*percentDecode("%2541"), std::string("%41")); // decoded once only
    QCOMPARE(*percentDecode(""), std::string());
}

void TestUri::percentDecodeHostile_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("lone percent") << QByteArray("abc%");
    QTest::newRow("truncated") << QByteArray("%4");
    QTest::newRow("truncated mid") << QByteArray("a%4");
    QTest::newRow("not hex") << QByteArray("%zz");
    QTest::newRow("half hex") << QByteArray("%4g");
    QTest::newRow("encoded NUL") << QByteArray("a%00b");
}

void TestUri::percentDecodeHostile()
{
    QFETCH(QByteArray, text);
    REQUIRE_KIND(percentDecode(view(text)), ErrorKind::InvalidInput);
}

void TestUri::percentDecodeLenient()
{
    QCOMPARE(*percentDecode("100%", Escapes::Lenient), std::string("100%"));
    QCOMPARE(*percentDecode("%zz%4", Escapes::Lenient), std::string("%zz%4"));
    QCOMPARE(*percentDecode("%%41", Escapes::Lenient), std::string("%A"));
    QCOMPARE(*percentDecode("%41%", Escapes::Lenient), std::string("A%"));
    QCOMPARE(*percentDecode("%4g%2541", Escapes::Lenient), std::string("%4g%41"));
    // A valid escape is still decoded, and a NUL is still no character of a name.
    REQUIRE_KIND(percentDecode("100%-%00", Escapes::Lenient), ErrorKind::InvalidInput);
}

// What aws-cli and s5cmd take literally: a '%' that starts no valid escape, and '#'.
void TestUri::namesAsPeopleTypeThem_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("printed");
    QTest::newRow("percent sign") << QByteArray("s3://b/report 100%.pdf") << QByteArray("/report 100%.pdf")
                                  << QByteArray("s3://b/report%20100%25.pdf");
    QTest::newRow("hash") << QByteArray("s3://b/a#b") << QByteArray("/a#b") << QByteArray("s3://b/a%23b");
    QTest::newRow("hash in folder and name")
        << QByteArray("webdav://h/dir#1/x#?y") << QByteArray("/dir#1/x#") << QByteArray("webdav://h/dir%231/x%23?y");
    QTest::newRow("cut-short escape") << QByteArray("memory://demo/%4") << QByteArray("/%4")
                                      << QByteArray("memory://demo/%254");
    QTest::newRow("non-hex escape") << QByteArray("memory://demo/%zz") << QByteArray("/%zz")
                                    << QByteArray("memory://demo/%25zz");
    QTest::newRow("valid escape beside a sign")
        << QByteArray("memory://demo/%%41%") << QByteArray("/%A%") << QByteArray("memory://demo/%25A%25");
    QTest::newRow("encoded percent") << QByteArray("memory://demo/a%2541") << QByteArray("/a%41")
                                     << QByteArray("memory://demo/a%2541");
    QTest::newRow("local") << QByteArray("file:///tmp/50% off#2") << QByteArray("/tmp/50% off#2")
                           << QByteArray("file:///tmp/50%25%20off%232");
}

void TestUri::namesAsPeopleTypeThem()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, printed);
    Uri uri = parsed(std::string(view(text)));
    QCOMPARE(uri.path(), std::string(view(path)));
    QCOMPARE(uri.toString(), std::string(view(printed)));
    // What is printed reads back as the same name.
    QCOMPARE(parsed(uri.toString()).path(), uri.path());
}

void TestUri::hostileInputs_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("no scheme") << QByteArray("example.com/path");
    QTest::newRow("relative path") << QByteArray("dir/file.txt");
    QTest::newRow("colon first") << QByteArray("://host/x");
    QTest::newRow("digit scheme") << QByteArray("1abc://x");
    QTest::newRow("bad scheme char") << QByteArray("me_mory://demo/x");
    QTest::newRow("port 0") << QByteArray("webdav://host:0/x");
    QTest::newRow("port 70000") << QByteArray("webdav://host:70000/x");
    QTest::newRow("port 12ab") << QByteArray("webdav://host:12ab/x");
    QTest::newRow("port negative") << QByteArray("webdav://host:-1/x");
    QTest::newRow("port huge") << QByteArray("webdav://host:99999999999999999999/x");
    QTest::newRow("encoded NUL") << QByteArray("memory://demo/a%00b");
    QTest::newRow("encoded NUL among literal percents") << QByteArray("memory://demo/100%-%00");
    QTest::newRow("bad escape in host") << QByteArray("memory://de%zzmo/");
    QTest::newRow("encoded slash in host") << QByteArray("memory://a%2Fb/x");
    QTest::newRow("bad escape in query") << QByteArray("s3://b/k?region=%zz");
    QTest::newRow("bad escape in query after a hash") << QByteArray("s3://b/k?region=a#%4");
    QTest::newRow("query without name") << QByteArray("s3://b/k?=v");
    QTest::newRow("newline") << QByteArray("memory://demo/a\nb");
    QTest::newRow("tab") << QByteArray("memory://demo/a\tb");
    QTest::newRow("DEL") << QByteArray("memory://demo/a\x7f"
                                       "b");
    QTest::newRow("raw NUL") << QByteArray("memory://demo/a\0b", 17);
    QTest::newRow("raw NUL in bare path") << QByteArray("/tmp/a\0b", 8);
    QTest::newRow("unclosed IPv6") << QByteArray("nbd://[::1/export");
    QTest::newRow("unclosed IPv6 end") << QByteArray("nbd://[::1");
    QTest::newRow("junk after IPv6") << QByteArray("nbd://[::1]x/export");
    QTest::newRow("non-absolute path") << QByteArray("memory:relative");
}

void TestUri::hostileInputs()
{
    QFETCH(QByteArray, text);
    auto uri = Uri::parse(view(text));
    QVERIFY2(!uri.ok(), uri.ok() ? uri->toString().c_str() : "");
    QCOMPARE(uri.error().kind(), ErrorKind::InvalidInput);
    QVERIFY(!uri.error().temporary());
    const std::string message = uri.error().message();
    QVERIFY2(message.starts_with("cannot parse URI: "), message.c_str());
    QVERIFY(message.size() > std::string_view("cannot parse URI: ").size() + 5);
}

void TestUri::errorsNeverShowSecrets_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("bad escape in host") << QByteArray("s3://AKIA:SECRETVALUE@ho%zzst/");
    QTest::newRow("truncated escape in host") << QByteArray("s3://AKIA:SECRETVALUE@host%4/a");
    QTest::newRow("bad port") << QByteArray("s3://AKIA:SECRETVALUE@host:70000/");
    QTest::newRow("port letters") << QByteArray("s3://AKIA:SECRETVALUE@host:12ab/");
    QTest::newRow("unclosed IPv6") << QByteArray("s3://AKIA:SECRETVALUE@[::1/x");
    QTest::newRow("newline") << QByteArray("s3://AKIA:SECRETVALUE@host/a\nb");
    QTest::newRow("encoded NUL") << QByteArray("s3://AKIA:SECRETVALUE@host/%00");
    QTest::newRow("secret query then bad escape") << QByteArray("s3://b/k?token=SECRETVALUE&x=%zz");
    QTest::newRow("secret query with a hash, then bad escape") << QByteArray("s3://b/k?password=SECRET#VALUE&x=%4");
    QTest::newRow("bad escape in secret") << QByteArray("s3://b/k?secret=SECRETVALUE%z");
    QTest::newRow("secret in bad scheme") << QByteArray("1SECRETVALUE://x");
    QTest::newRow("secret as relative path") << QByteArray("memory:SECRETVALUE");
    QTest::newRow("secret without scheme") << QByteArray("SECRETVALUE");
}

void TestUri::errorsNeverShowSecrets()
{
    QFETCH(QByteArray, text);
    auto uri = Uri::parse(view(text));
    QVERIFY(!uri.ok());
    QCOMPARE(uri.error().kind(), ErrorKind::InvalidInput);
    const Error &e = uri.error();
    for (const std::string &shown : {e.message(), e.cause(), e.uri(), e.operation()})
        QVERIFY2(shown.find("SECRETVALUE") == std::string::npos, shown.c_str());
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestUri)
#include "test_uri.moc"
