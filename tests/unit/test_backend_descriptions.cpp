// Backends describe themselves (BackendDescription) and the command line lists what is
// registered: a backend nobody else knows, registered beside the built-in ones, appears in
// `strata --help` and in the man page's LOCATIONS, and its URIs' options are checked against
// its own list. Every built-in backend describes itself, and accepts what it lists.
#include "app/cli/cli.h"
#include "app/cli/locations_help.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"
#include "tests/lib/frob_factory.h"

#include <QtTest>

#include <cstdio>
#include <string>

using namespace strata;

namespace {

void registerWithFrob(Registry &registry)
{
    registerBuiltinBackends(registry);
    registry.add(std::make_unique<test::FrobFactory>());
}

// What `strata ARGS…` prints on its output, and its exit code.
std::pair<int, std::string> runStrata(std::vector<std::string> args)
{
    args.insert(args.begin(), "strata");
    std::FILE *out = std::tmpfile();
    std::FILE *err = std::tmpfile();
    const int rc = cli::run(args, &registerWithFrob, out, err);
    std::string text;
    std::rewind(out);
    for (int c; (c = std::fgetc(out)) != EOF;)
        text += char(c);
    std::rewind(err);
    for (int c; (c = std::fgetc(err)) != EOF;)
        text += char(c);
    std::fclose(out);
    std::fclose(err);
    return {rc, text};
}

} // namespace

class BackendDescriptionsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aRegisteredBackendIsInTheHelp()
    {
        const auto [rc, text] = runStrata({"--help"});
        QCOMPARE(rc, 0);
        QVERIFY2(text.find("Frobnicator box: frob://BOX/PATH\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("?speed=N ?gentle") != std::string::npos, text.c_str());
        // The built-in ones too, each once (webdav:// and webdavs:// are one backend).
        for (const char *title : {"Local folder:", "S3 object storage:", "WebDAV:", "SFTP (SSH):", "FTP / FTPS:"}) {
            const auto at = text.find(title);
            QVERIFY2(at != std::string::npos, title);
            QCOMPARE(text.find(title, at + 1), std::string::npos);
        }
    }

    void aRegisteredBackendIsInTheManPage()
    {
        Registry registry;
        registerWithFrob(registry);
        const std::string man = cli::locationsManSection(registry);
        QVERIFY(man.starts_with(".SH LOCATIONS\n"));
        QVERIFY2(man.find(".TP\n\\fBfrob://BOX/PATH\\fR\nFrobnicator box: A box that frobnicates.\n.RS\n")
                     != std::string::npos,
                 man.c_str());
        QVERIFY(man.find(".TP\n\\fB?speed\\fR\\fB=\\fR\\fIN\\fR\nFrobnicate N times a second.\n") != std::string::npos);
        QVERIFY(man.find(".TP\n\\fB?gentle\\fR\nFrobnicate gently.\n") != std::string::npos);
        // Every line a roff request or text: none starts with a stray '.' or quote.
        QVERIFY(man.find("\n.\n") == std::string::npos);
    }

    void optionsAreCheckedAgainstTheList()
    {
        Registry registry;
        registerWithFrob(registry);
        auto wrong = registry.open("frob://box/x?speed=3&loud=1");
        QVERIFY(!wrong);
        QCOMPARE(wrong.error().cause(), std::string("unknown frob:// option 'loud' (known: speed, gentle)"));
        auto known = registry.open("frob://box/x?speed=3&gentle");
        QVERIFY(!known);
        QCOMPARE(known.error().kind(), ErrorKind::Unsupported); // past the check, to create()

        // A wildcard stands for any end.
        BackendDescription tls{"t", {"t://"}, {}, {{"tls-*", "V", "TLS"}}, {}};
        QVERIFY(checkOptions(*Uri::parse("t://h/?tls-certificates=x"), tls));
        QVERIFY(!checkOptions(*Uri::parse("t://h/?tlsx=1"), tls));
        QVERIFY(!checkOptions(*Uri::parse("t://h/?x=1"), BackendDescription{"n", {"n://"}, {}, {}, {}}));
    }

    void everyBuiltInBackendDescribesItselfAndRefusesWhatItDoesNotList()
    {
        Registry registry;
        registerBuiltinBackends(registry);
        QCOMPARE(registry.descriptions().size(), std::size_t(8)); // file memory s3 webdav nbd sftp ftp null
        for (const BackendDescription &d : registry.descriptions()) {
            QVERIFY(!d.title.empty());
            QVERIFY(!d.forms.empty());
            QVERIFY2(!d.summary.empty(), d.title.c_str());
            for (const BackendOption &o : d.options)
                QVERIFY2(!o.help.empty() && o.help.ends_with('.'), o.name.c_str());
        }
        // Refused by the list, before any connection is tried (nothing listens on these).
        for (const char *uri : {"file:///tmp?bogus", "memory://demo/?bogus=1", "s3://b/?bogus=1",
                                "webdav://127.0.0.1:1/?bogus=1", "sftp://127.0.0.1:1/?bogus=1",
                                "ftp://127.0.0.1:1/?bogus=1", "nbd://127.0.0.1:1/?bogus=1", "null:?bogus=1"}) {
            auto location = registry.open(uri);
            QVERIFY2(!location, uri);
            QVERIFY2(location.error().cause().find("option 'bogus'") != std::string::npos,
                     location.error().message().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(BackendDescriptionsTest)
#include "test_backend_descriptions.moc"
