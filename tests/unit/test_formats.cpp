// The Qt-free formats that replaced Qt's in core and the command line: JSON (against
// QJsonDocument), SHA-256, HMAC-SHA256 and BLAKE2b-512 (libcrypto; against QCryptographicHash and published
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
        // Keys sorted whatever order they were set in, four spaces a level, a final newline;
        // compact output byte for byte what Qt prints for the same document.
        QVERIFY2(ours.starts_with("{\n    \"empty\": {},\n    \"flag\": true,\n"), ours.c_str());
        QVERIFY(ours.ends_with("\n}\n"));
        QCOMPARE(json::write(o, json::Format::Compact), qt.toJson(QJsonDocument::Compact).toStdString());
        // Bytes that are not UTF-8 (a name in another encoding): U+FFFD in output, and
        // writeExact refuses them rather than record another name.
        const json::Value latin1 = json::Object{{"name", "caf\xe9"}};
        QCOMPARE(json::write(latin1, json::Format::Compact), std::string("{\"name\":\"caf\xef\xbf\xbd\"}"));
        QVERIFY(!json::writeExact(latin1));
        QCOMPARE(json::writeExact(o).value(), json::write(o, json::Format::Compact));
        QCOMPARE(json::quoted("a\"\n\x01"), std::string("\"a\\\"\\n\\u0001\""));
    }

    void jsonParsesAndRoundTrips()
    {
        const auto v =
            json::parse(R"( {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00", true, null], "b": {"c": 9007199254740993}} )");
        QVERIFY(v);
        QCOMPARE((*v)["a"].size(), std::size_t(5));
        QCOMPARE((*v)["a"][1].get<double>(), -2500.0);
        QCOMPARE((*v)["a"][2].get<std::string>(), std::string("xé😀"));
        QCOMPARE((*v)["b"]["c"].get<std::int64_t>(), std::int64_t(9007199254740993)); // exact: not through a double
        QCOMPARE(json::get<std::string>(*v, "missing", "none"), std::string("none"));
        QCOMPARE(json::get<std::int64_t>(*v, "a", -1), std::int64_t(-1)); // not a number
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
        QVERIFY2(error.find("parse error at line ") != std::string::npos, error.c_str());
    }

    // libcrypto's digests as used here (a context reused after finish, any pieces).
    void hashesMatchPublishedVectors()
    {
        Sha256 sha;
        sha.add("abc");
        QCOMPARE(toHex(sha.finish()), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        sha.reset();
        sha.add("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
        QCOMPARE(toHex(sha.finish()), std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        sha.reset();
        sha.add(std::string(1000000, 'a'));
        QCOMPARE(toHex(sha.finish()), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        QCOMPARE(toHex(sha256("abc")), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        Blake2b512 b2;
        b2.add("abc");
        QCOMPARE(toHex(b2.finish()),
                 std::string("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                             "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"));
        b2.reset();
        QCOMPARE(toHex(b2.finish()),
                 std::string("786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                             "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"));
        // RFC 4231 test cases 2 and 6 (a key longer than the block), and an empty key.
        QCOMPARE(toHex(hmacSha256("Jefe", "what do ya want for nothing?")),
                 std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
        QCOMPARE(toHex(hmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
                 std::string("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
        QCOMPARE(toHex(hmacSha256("", "")),
                 std::string("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"));
        QCOMPARE(toHex(hmacSha256("Jefe", "what do ya want for nothing?")),
                 std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    }

    // Any length, fed in any pieces.
    void hashesMatchQtOnRandomInput()
    {
        auto *rng = QRandomGenerator::global();
        for (int round = 0; round < 200; ++round) {
            std::string data(rng->bounded(0, round % 4 == 0 ? 20000 : 1000), '\0');
            for (auto &c : data)
                c = char(rng->bounded(256));
            Sha256 sha;
            Blake2b512 b2;
            for (std::size_t pos = 0; pos < data.size();) {
                const std::size_t n = std::min<std::size_t>(data.size() - pos, rng->bounded(1, round % 2 ? 200 : 5000));
                sha.add(std::string_view(data).substr(pos, n));
                b2.add(std::string_view(data).substr(pos, n));
                pos += n;
            }
            const QByteArray bytes = QByteArray::fromStdString(data);
            QCOMPARE(toHex(sha.finish()),
                     QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString());
            QCOMPARE(toHex(b2.finish()),
                     QCryptographicHash::hash(bytes, QCryptographicHash::Blake2b_512).toHex().toStdString());
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
            QVERIFY2(line.size() <= 79 || line.find(' ', 30) == std::string::npos
                         || line.ends_with(std::string(120, 'w')),
                     line.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestFormats)
#include "test_formats.moc"
