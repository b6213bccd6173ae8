// The Qt-free formats that replaced Qt's in core and the command line: JSON (against
// QJsonDocument), SHA-256 and BLAKE2b-256 (against QCryptographicHash and published
// vectors), and the argument parser (against what QCommandLineParser accepted).
#include "unit_checks.h"

#include "app/cli/args.h"
#include "core/io/hash.h"
#include "core/io/json.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

using namespace strata;

class TestFormats : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonWritesLikeQt()
    {
        json::Object o{{"name", "a \"quoted\"\n\tname ✓"},
                       {"size", std::uint64_t(1) << 40},
                       {"negative", -7},
                       {"ratio", 0.25},
                       {"flag", true},
                       {"none", nullptr},
                       {"list", json::Array{1, "two", json::Object{{"b", 2}, {"a", 1}}}},
                       {"empty", json::Object{}},
                       {"nothing", json::Array{}}};
        const std::string ours = json::write(o);
        const auto qt = QJsonDocument::fromJson(QByteArray::fromStdString(ours));
        QVERIFY(qt.isObject());
        // Same document, and byte for byte what Qt would print for it.
        QCOMPARE(ours, qt.toJson(QJsonDocument::Indented).toStdString());
        QCOMPARE(json::write(o, json::Format::Compact), qt.toJson(QJsonDocument::Compact).toStdString());
    }

    void jsonParsesAndRoundTrips()
    {
        const auto v = json::parse(R"( {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00", true, null], "b": {"c": 9007199254740993}} )");
        QVERIFY(v);
        QCOMPARE((*v)["a"].toArray().size(), std::size_t(5));
        QCOMPARE((*v)["a"].toArray()[1].toDouble(), -2500.0);
        QCOMPARE((*v)["a"].toArray()[2].toString(), std::string("xé😀"));
        QCOMPARE((*v)["b"]["c"].toInt(), std::int64_t(9007199254740993)); // exact: not through a double
        QVERIFY((*v)["missing"].isNull());
        QCOMPARE(json::parse(json::write(*v)), v);
    }

    void jsonRefusesBrokenText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("cut") << R"({"a": [1, 2)";
        QTest::newRow("trailing comma") << R"({"a": 1,})";
        QTest::newRow("junk after") << R"({"a": 1} x)";
        QTest::newRow("bare word") << "nul";
        QTest::newRow("control in string") << "\"a\nb\"";
        QTest::newRow("lone surrogate") << R"("\ud800")";
        QTest::newRow("bad escape") << R"("\x")";
        QTest::newRow("sign alone") << "-";
        QTest::newRow("deep") << QString(600, QLatin1Char('['));
    }
    void jsonRefusesBrokenText()
    {
        QFETCH(QString, text);
        std::string error;
        QVERIFY(!json::parse(text.toStdString(), &error));
        QVERIFY2(error.find("at byte") != std::string::npos, error.c_str());
    }

    // SHA-256 runs on the CPU's SHA instructions when it has them, else on portable rounds:
    // both are checked (the instructions' row is skipped on a CPU without them).
    static void sha256Implementations()
    {
        QTest::addColumn<bool>("instructions");
        QTest::newRow("sha instructions") << true;
        QTest::newRow("portable") << false;
    }
    static void useSha256Implementation(bool instructions)
    {
        if (!detail::useSha256Instructions(instructions))
            QSKIP("this CPU has no SHA instructions");
    }
    void cleanup() { detail::useSha256Instructions(true); }

    void hashesMatchPublishedVectors_data() { sha256Implementations(); }
    void hashesMatchPublishedVectors()
    {
        QFETCH(bool, instructions);
        useSha256Implementation(instructions);
        Sha256 sha;
        sha.add("abc");
        QCOMPARE(toHex(sha.finish()), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        sha.reset();
        sha.add("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
        QCOMPARE(toHex(sha.finish()), std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        sha.reset();
        sha.add(std::string(1000000, 'a'));
        QCOMPARE(toHex(sha.finish()), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        Blake2b256 b2;
        b2.add("abc");
        QCOMPARE(toHex(b2.finish()), std::string("bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"));
        Blake2b256 empty;
        QCOMPARE(toHex(empty.finish()), std::string("0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"));
    }

    // Any length, fed in any pieces (block boundaries are where such code breaks).
    void hashesMatchQtOnRandomInput_data() { sha256Implementations(); }
    void hashesMatchQtOnRandomInput()
    {
        QFETCH(bool, instructions);
        useSha256Implementation(instructions);
        auto *rng = QRandomGenerator::global();
        for (int round = 0; round < 200; ++round) {
            std::string data(rng->bounded(0, round % 4 == 0 ? 20000 : 1000), '\0');
            for (auto &c : data)
                c = char(rng->bounded(256));
            Sha256 sha;
            Blake2b256 b2;
            for (std::size_t pos = 0; pos < data.size();) {
                const std::size_t n = std::min<std::size_t>(data.size() - pos, rng->bounded(1, round % 2 ? 200 : 5000));
                sha.add(std::string_view(data).substr(pos, n));
                b2.add(std::string_view(data).substr(pos, n));
                pos += n;
            }
            const QByteArray bytes = QByteArray::fromStdString(data);
            QCOMPARE(toHex(sha.finish()), QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString());
            QCOMPARE(toHex(b2.finish()), QCryptographicHash::hash(bytes, QCryptographicHash::Blake2b_256).toHex().toStdString());
        }
    }

    void argumentsParseLikeQCommandLineParser()
    {
        cli::ArgParser p;
        p.addOption({{"r", "recursive"}, "Recurse."});
        p.addOption({"n", "No clobber."});
        p.addOption({"jobs", "Jobs.", "N"});
        p.addOption({"exclude", "Skip.", "GLOB"});
        QVERIFY(p.parse({"strata cp", "-rn", "a", "--jobs=4", "b", "--exclude", "*.o", "--exclude=x", "--", "-c"}));
        QVERIFY(p.isSet("recursive"));
        QVERIFY(p.isSet("r"));
        QVERIFY(p.isSet("n"));
        QCOMPARE(p.value("jobs"), std::string("4"));
        QCOMPARE(p.values("exclude"), (std::vector<std::string>{"*.o", "x"}));
        QCOMPARE(p.positionalArguments(), (std::vector<std::string>{"a", "b", "-c"}));

        QVERIFY(!p.parse({"strata cp", "--bogus"}));
        QCOMPARE(p.errorText(), std::string("Unknown option 'bogus'."));
        QVERIFY(!p.parse({"strata cp", "-rx"}));
        QCOMPARE(p.errorText(), std::string("Unknown option 'x'."));
        QVERIFY(!p.parse({"strata cp", "a", "--jobs"}));
        QCOMPARE(p.errorText(), std::string("Missing value after '--jobs'."));
        QVERIFY(!p.parse({"strata cp", "--recursive=yes"}));
        QCOMPARE(p.errorText(), std::string("Unexpected value after '--recursive'."));
        QVERIFY(p.parse({"strata cp", "-", "b"})); // "-" is an argument (standard input)
        QCOMPARE(p.positionalArguments().front(), std::string("-"));
    }

    void helpListsEveryOption()
    {
        cli::ArgParser p;
        p.setDescription("Copy things.");
        p.setPositionalSyntax("SRC… DST");
        p.addOption({{"r", "recursive"}, "Copy directories and their contents."});
        p.addOption({"part-size", std::string(120, 'w'), "SIZE"});
        QVERIFY(p.parse({"strata cp"}));
        const std::string help = p.helpText();
        QVERIFY(help.starts_with("Usage: strata cp [options] SRC… DST\nCopy things.\n"));
        QVERIFY(help.find("  -r, --recursive     Copy directories and their contents.\n") != std::string::npos);
        QVERIFY(help.find("  --part-size <SIZE>  ") != std::string::npos);
        for (std::size_t pos = 0, next; pos < help.size(); pos = next + 1) { // wrapped, except unbreakable words
            next = help.find('\n', pos);
            const std::string line = help.substr(pos, next - pos);
            QVERIFY2(line.size() <= 79 || line.find(' ', 30) == std::string::npos || line.ends_with(std::string(120, 'w')),
                     line.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestFormats)
#include "test_formats.moc"
