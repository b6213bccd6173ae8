// AWS Signature Version 4: the published S3 and general-reference examples reproduced
// exactly, then the encoding, sorting and header rules the signature stands on.
#include "tests/unit/unit_checks.h"

#include "backends/s3/sigv4.h"

#include <QTest>

#include <algorithm>

namespace strata::s3 {

namespace {

using namespace std::chrono;

// The S3 examples of "Authenticating Requests: Using the Authorization Header".
const Credentials kS3Example{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", {}};
const std::string kS3Host = "examplebucket.s3.amazonaws.com";
const system_clock::time_point kS3Time = sys_days{year{2013} / 5 / 24};

// The IAM example of the general reference and the AWS SigV4 test suite.
const std::string kIamSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const system_clock::time_point kIamTime = sys_days{year{2015} / 8 / 30} + hours{12} + minutes{36};

std::string headerValue(const std::vector<Header> &headers, std::string_view name)
{
    auto it = std::find_if(headers.begin(), headers.end(), [&](const Header &h) { return h.first == name; });
    return it == headers.end() ? std::string("<absent>") : it->second;
}

bool hasHeader(const std::vector<Header> &headers, std::string_view name)
{
    return std::any_of(headers.begin(), headers.end(), [&](const Header &h) { return h.first == name; });
}

std::string signatureOf(const std::vector<Header> &headers)
{
    const std::string auth = headerValue(headers, "Authorization");
    const auto at = auth.rfind("Signature=");
    return at == std::string::npos ? std::string("<none>") : auth.substr(at + 10);
}

std::string signedHeadersOf(const std::vector<Header> &headers)
{
    const std::string auth = headerValue(headers, "Authorization");
    const auto from = auth.find("SignedHeaders=");
    if (from == std::string::npos)
        return "<none>";
    const auto to = auth.find(',', from);
    return auth.substr(from + 14, to - from - 14);
}

SignedRequest getObjectExample()
{
    return {"GET", kS3Host, "/test.txt", {}, {{"Range", "bytes=0-9"}}, {}};
}

SignedRequest putObjectExample()
{
    return {"PUT",
            kS3Host,
            "/test$file.text",
            {},
            {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
            sha256Hex("Welcome to Amazon S3.")};
}

// Signs the headers signV4 would, so canonical requests can be compared with AWS's text.
std::vector<Header> s3SignedHeaders(const SignedRequest &request)
{
    std::vector<Header> headers = {
        {"host", request.host},
        {"x-amz-content-sha256", request.payloadHash.empty() ? std::string(kEmptyPayloadHash) : request.payloadHash},
        {"x-amz-date", amzDate(kS3Time)}};
    headers.insert(headers.end(), request.headers.begin(), request.headers.end());
    return headers;
}

QByteArray qb(const std::string &s)
{
    return QByteArray::fromStdString(s);
}

} // namespace

class SigV4Test : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void awsS3Examples_data();
    void awsS3Examples();
    void getObjectCanonicalRequestMatchesAws();
    void putObjectCanonicalRequestMatchesAws();
    void getObjectAuthorizationHeader();
    void presignedUrlMatchesAws();
    void iamListUsersExample();
    void signingKeyVectors();
    void testSuiteGetVanilla();
    void sessionTokenIsSentAndSigned();
    void anonymousIsNotSigned();
    void secretNeverInHeaders();
    void uriEncodeRules_data();
    void uriEncodeRules();
    void canonicalUriKeepsKeyAsIs_data();
    void canonicalUriKeepsKeyAsIs();
    void bareQueryNameGetsEquals();
    void queryIsSortedByEncodedName();
    void headerValuesAreTrimmedAndCollapsed();
    void headerNamesAnyCaseAndRepeated();
    void signerOwnedHeadersAreNotTakenFromCaller();
    void amzDateFormat();
    void fixedTimeIsDeterministic();
    void sha256OfKnownInputs();
};

void SigV4Test::awsS3Examples_data()
{
    QTest::addColumn<int>("example");
    QTest::addColumn<QByteArray>("signature");
    QTest::addColumn<QByteArray>("signedHeaders");
    QTest::newRow("GET object with Range")
        << 0 << QByteArray("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        << QByteArray("host;range;x-amz-content-sha256;x-amz-date");
    QTest::newRow("PUT object") << 1 << QByteArray("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
                                << QByteArray("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
    QTest::newRow("GET bucket lifecycle")
        << 2 << QByteArray("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        << QByteArray("host;x-amz-content-sha256;x-amz-date");
    QTest::newRow("GET bucket (list objects)")
        << 3 << QByteArray("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
        << QByteArray("host;x-amz-content-sha256;x-amz-date");
}

void SigV4Test::awsS3Examples()
{
    QFETCH(int, example);
    QFETCH(QByteArray, signature);
    QFETCH(QByteArray, signedHeaders);

    const SignedRequest requests[] = {
        getObjectExample(),
        putObjectExample(),
        {"GET", kS3Host, "/", {{"lifecycle", ""}}, {}, {}},
        // Given out of order on purpose: the signer sorts.
        {"GET", kS3Host, "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, {}},
    };
    const auto headers = signV4(requests[example], kS3Example, "us-east-1", "s3", kS3Time);
    QCOMPARE(qb(signatureOf(headers)), signature);
    QCOMPARE(qb(signedHeadersOf(headers)), signedHeaders);
    QCOMPARE(headerValue(headers, "x-amz-date"), std::string("20130524T000000Z"));
}

void SigV4Test::getObjectCanonicalRequestMatchesAws()
{
    const SignedRequest request = getObjectExample();
    const std::string canonical = canonicalRequest(request, s3SignedHeaders(request));
    const QList<QByteArray> lines = qb(canonical).split('\n');
    const QList<QByteArray> documented = {
        "GET",
        "/test.txt",
        "",
        "host:examplebucket.s3.amazonaws.com",
        "range:bytes=0-9",
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "x-amz-date:20130524T000000Z",
        "",
        "host;range;x-amz-content-sha256;x-amz-date",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    };
    QCOMPARE(lines.size(), documented.size());
    for (qsizetype i = 0; i < lines.size(); ++i)
        QCOMPARE(lines[i], documented[i]);

    const std::string toSign =
        stringToSign(amzDate(kS3Time), credentialScope("20130524", "us-east-1", "s3"), canonical);
    QCOMPARE(toSign,
             std::string("AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                         "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"));
}

void SigV4Test::putObjectCanonicalRequestMatchesAws()
{
    const SignedRequest request = putObjectExample();
    QCOMPARE(request.payloadHash, std::string("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"));
    const std::string canonical = canonicalRequest(request, s3SignedHeaders(request));
    QCOMPARE(canonical,
             std::string("PUT\n"
                         "/test%24file.text\n"
                         "\n"
                         "date:Fri, 24 May 2013 00:00:00 GMT\n"
                         "host:examplebucket.s3.amazonaws.com\n"
                         "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
                         "x-amz-date:20130524T000000Z\n"
                         "x-amz-storage-class:REDUCED_REDUNDANCY\n"
                         "\n"
                         "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
                         "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"));
    QCOMPARE(sha256Hex(canonical), std::string("9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"));
}

void SigV4Test::getObjectAuthorizationHeader()
{
    const auto headers = signV4(getObjectExample(), kS3Example, "us-east-1", "s3", kS3Time);
    QCOMPARE(headerValue(headers, "Authorization"),
             std::string("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                         "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                         "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    QCOMPARE(headerValue(headers, "x-amz-content-sha256"), std::string(kEmptyPayloadHash));
    QCOMPARE(headers.size(), std::size_t(3));
}

// The presigned URL example of "Authenticating Requests: Using Query Parameters".
void SigV4Test::presignedUrlMatchesAws()
{
    const SignedRequest request{"GET", kS3Host, "/test.txt", {}, {}, {}};
    const std::string query = presignedQuery(request, kS3Example, "us-east-1", "s3", kS3Time, hours(24));
    QCOMPARE(query,
             std::string("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-"
                         "east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-"
                         "SignedHeaders=host&X-Amz-Signature="
                         "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"));
    QVERIFY(query.find(kS3Example.secretAccessKey) == std::string::npos);
}

// The general reference signs only content-type;host;x-amz-date (no x-amz-content-sha256,
// which signV4 always adds for S3), so it goes through the building blocks.
void SigV4Test::iamListUsersExample()
{
    const SignedRequest request{
        "GET", "iam.amazonaws.com", "/", {{"Version", "2010-05-08"}, {"Action", "ListUsers"}}, {}, {}};
    const std::string canonical =
        canonicalRequest(request,
                         {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                          {"Host", "iam.amazonaws.com"},
                          {"X-Amz-Date", amzDate(kIamTime)}});
    QCOMPARE(canonical,
             std::string("GET\n/\nAction=ListUsers&Version=2010-05-08\n"
                         "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
                         "host:iam.amazonaws.com\n"
                         "x-amz-date:20150830T123600Z\n\n"
                         "content-type;host;x-amz-date\n"
                         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(sha256Hex(canonical), std::string("f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59"));

    const std::string key = signingKey(kIamSecret, "20150830", "us-east-1", "iam");
    QCOMPARE(qb(key).toHex(), QByteArray("c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9"));
    const std::string toSign =
        stringToSign("20150830T123600Z", credentialScope("20150830", "us-east-1", "iam"), canonical);
    QCOMPARE(hmacSha256Hex(key, toSign),
             std::string("5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"));
}

void SigV4Test::signingKeyVectors()
{
    // "Examples of how to derive a signing key for Signature Version 4".
    const std::string key = signingKey(kIamSecret, "20120215", "us-east-1", "iam");
    QCOMPARE(qb(key).toHex(), QByteArray("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"));
}

void SigV4Test::testSuiteGetVanilla()
{
    const SignedRequest request{"GET", "example.amazonaws.com", "/", {}, {}, {}};
    const std::string canonical =
        canonicalRequest(request, {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}});
    const std::string toSign =
        stringToSign("20150830T123600Z", credentialScope("20150830", "us-east-1", "service"), canonical);
    QCOMPARE(hmacSha256Hex(signingKey(kIamSecret, "20150830", "us-east-1", "service"), toSign),
             std::string("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
}

void SigV4Test::sessionTokenIsSentAndSigned()
{
    Credentials withToken = kS3Example;
    withToken.sessionToken = "FwoGZXIvYXdzEXAMPLE//token+with=odd/chars";
    const auto plain = signV4(getObjectExample(), kS3Example, "us-east-1", "s3", kS3Time);
    const auto temp = signV4(getObjectExample(), withToken, "us-east-1", "s3", kS3Time);

    QVERIFY(!hasHeader(plain, "x-amz-security-token"));
    QCOMPARE(headerValue(temp, "x-amz-security-token"), withToken.sessionToken);
    QCOMPARE(signedHeadersOf(temp), std::string("host;range;x-amz-content-sha256;x-amz-date;x-amz-security-token"));
    QVERIFY(signatureOf(temp) != signatureOf(plain));

    // The signature is the one of a canonical request that carries the token.
    SignedRequest request = getObjectExample();
    std::vector<Header> signedHeaders = s3SignedHeaders(request);
    signedHeaders.emplace_back("x-amz-security-token", withToken.sessionToken);
    const std::string canonical = canonicalRequest(request, signedHeaders);
    QVERIFY(canonical.find("\nx-amz-security-token:" + withToken.sessionToken + '\n') != std::string::npos);
    const std::string expected =
        hmacSha256Hex(signingKey(kS3Example.secretAccessKey, "20130524", "us-east-1", "s3"),
                      stringToSign("20130524T000000Z", credentialScope("20130524", "us-east-1", "s3"), canonical));
    QCOMPARE(signatureOf(temp), expected);
}

void SigV4Test::anonymousIsNotSigned()
{
    const Credentials anonymous{{}, "ignored-secret", "ignored-token"};
    QVERIFY(anonymous.anonymous());
    const auto headers = signV4(getObjectExample(), anonymous, "us-east-1", "s3", kS3Time);
    QCOMPARE(headers.size(), std::size_t(1));
    QCOMPARE(headerValue(headers, "x-amz-content-sha256"), std::string(kEmptyPayloadHash));

    SignedRequest streamed = putObjectExample();
    streamed.payloadHash = std::string(kUnsignedPayload);
    const auto put = signV4(streamed, anonymous, "us-east-1", "s3", kS3Time);
    QCOMPARE(put.size(), std::size_t(1));
    QCOMPARE(headerValue(put, "x-amz-content-sha256"), std::string("UNSIGNED-PAYLOAD"));
}

void SigV4Test::secretNeverInHeaders()
{
    Credentials credentials = kS3Example;
    credentials.sessionToken = "session-token";
    SignedRequest request = putObjectExample();
    request.query = {{"uploads", ""}};
    const auto headers = signV4(request, credentials, "eu-west-3", "s3", kS3Time);
    QCOMPARE(headers.size(), std::size_t(4));
    for (const auto &[name, value] : headers) {
        QVERIFY2(value.find(credentials.secretAccessKey) == std::string::npos, name.c_str());
        QVERIFY2(value.find("EXAMPLEKEY") == std::string::npos, name.c_str());
        QVERIFY2(name.find("EXAMPLEKEY") == std::string::npos, name.c_str());
    }
}

void SigV4Test::uriEncodeRules_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("encodeSlash");
    QTest::addColumn<QByteArray>("encoded");
    QTest::newRow("brief example") << QByteArray("a b+c~d*e") << false << QByteArray("a%20b%2Bc~d%2Ae");
    QTest::newRow("unreserved kept") << QByteArray("AZaz09-._~") << true << QByteArray("AZaz09-._~");
    QTest::newRow("slash kept in paths") << QByteArray("a/b/c") << false << QByteArray("a/b/c");
    QTest::newRow("slash encoded in query") << QByteArray("a/b") << true << QByteArray("a%2Fb");
    QTest::newRow("percent") << QByteArray("100%") << false << QByteArray("100%25");
    QTest::newRow("already encoded is encoded again") << QByteArray("a%20b") << false << QByteArray("a%2520b");
    QTest::newRow("question mark") << QByteArray("why?") << false << QByteArray("why%3F");
    QTest::newRow("equals and ampersand") << QByteArray("k=v&w") << true << QByteArray("k%3Dv%26w");
    QTest::newRow("hash") << QByteArray("#1") << false << QByteArray("%231");
    QTest::newRow("sub-delims") << QByteArray("!$'()*,;:@") << false << QByteArray("%21%24%27%28%29%2A%2C%3B%3A%40");
    QTest::newRow("unicode is UTF-8, uppercase hex") << QByteArray("ü€") << false << QByteArray("%C3%BC%E2%82%AC");
    QTest::newRow("control and DEL") << QByteArray("a\tb\x7f") << false << QByteArray("a%09b%7F");
    QTest::newRow("empty") << QByteArray() << true << QByteArray();
}

void SigV4Test::uriEncodeRules()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, encodeSlash);
    QFETCH(QByteArray, encoded);
    QCOMPARE(qb(uriEncode(text.toStdString(), encodeSlash)), encoded);
}

void SigV4Test::canonicalUriKeepsKeyAsIs_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("canonical");
    QTest::newRow("empty is root") << QByteArray() << QByteArray("/");
    QTest::newRow("root") << QByteArray("/") << QByteArray("/");
    QTest::newRow("space and unicode") << QByteArray("/bucket/a b/ü") << QByteArray("/bucket/a%20b/%C3%BC");
    QTest::newRow("no normalising") << QByteArray("/bucket/a//b/../c/./d") << QByteArray("/bucket/a//b/../c/./d");
    QTest::newRow("trailing slash kept") << QByteArray("/bucket/dir/") << QByteArray("/bucket/dir/");
    QTest::newRow("leading slash added") << QByteArray("test.txt") << QByteArray("/test.txt");
    QTest::newRow("plus tilde star") << QByteArray("/b/1+1~2*3") << QByteArray("/b/1%2B1~2%2A3");
}

void SigV4Test::canonicalUriKeepsKeyAsIs()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, canonical);
    QCOMPARE(qb(canonicalUri(path.toStdString())), canonical);

    SignedRequest request{"GET", "h", path.toStdString(), {}, {}, {}};
    const QList<QByteArray> lines = qb(canonicalRequest(request, {{"host", "h"}})).split('\n');
    QCOMPARE(lines.value(1), canonical);
}

void SigV4Test::bareQueryNameGetsEquals()
{
    QCOMPARE(canonicalQueryString({{"uploads", ""}}), std::string("uploads="));
    QCOMPARE(canonicalQueryString({}), std::string());
    QCOMPARE(canonicalQueryString({{"uploadId", "a/b+c=="}, {"partNumber", "2"}}),
             std::string("partNumber=2&uploadId=a%2Fb%2Bc%3D%3D"));
    QCOMPARE(canonicalQueryString({{"delete", ""}, {"versionId", "x y"}}), std::string("delete=&versionId=x%20y"));
}

void SigV4Test::queryIsSortedByEncodedName()
{
    QCOMPARE(canonicalQueryString({{"prefix", "dir/ü"}, {"list-type", "2"}, {"delimiter", "/"}}),
             std::string("delimiter=%2F&list-type=2&prefix=dir%2F%C3%BC"));
    // Byte order: uppercase before lowercase, then repeated names by value.
    QCOMPARE(canonicalQueryString({{"b", "2"}, {"a", "z"}, {"B", "1"}, {"a", "y"}}), std::string("B=1&a=y&a=z&b=2"));
    // Sorted after encoding: "%20" (0x25) sorts before "-" (0x2D) and letters.
    QCOMPARE(canonicalQueryString({{"a-b", "1"}, {"a b", "2"}}), std::string("a%20b=2&a-b=1"));
    QCOMPARE(canonicalQueryString(
                 {{"continuation-token", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="}, {"list-type", "2"}}),
             std::string("continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D&list-type=2"));
}

void SigV4Test::headerValuesAreTrimmedAndCollapsed()
{
    SignedRequest request{"GET", "h", "/", {}, {}, {}};
    const std::string canonical = canonicalRequest(
        request, {{"host", "h"}, {"X-Amz-Meta-Note", "  a   b \t c  "}, {"content-type", "\ttext/plain  "}});
    const QList<QByteArray> lines = qb(canonical).split('\n');
    QCOMPARE(lines.value(3), QByteArray("content-type:text/plain"));
    QCOMPARE(lines.value(4), QByteArray("host:h"));
    QCOMPARE(lines.value(5), QByteArray("x-amz-meta-note:a b c"));
    QCOMPARE(lines.value(7), QByteArray("content-type;host;x-amz-meta-note"));

    // The same request with tidy spacing signs the same.
    SignedRequest messy = getObjectExample();
    messy.headers = {{"  RANGE ", "  bytes=0-9   "}};
    QCOMPARE(signatureOf(signV4(messy, kS3Example, "us-east-1", "s3", kS3Time)),
             std::string("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
}

void SigV4Test::headerNamesAnyCaseAndRepeated()
{
    SignedRequest request{"GET", "h", "/", {}, {}, {}};
    const std::string canonical =
        canonicalRequest(request, {{"X-Amz-Meta-A", "1"}, {"host", "h"}, {"x-amz-meta-a", "2"}});
    const QList<QByteArray> lines = qb(canonical).split('\n');
    QCOMPARE(lines.value(3), QByteArray("host:h"));
    QCOMPARE(lines.value(4), QByteArray("x-amz-meta-a:1,2"));
    QCOMPARE(lines.value(6), QByteArray("host;x-amz-meta-a"));
}

void SigV4Test::signerOwnedHeadersAreNotTakenFromCaller()
{
    SignedRequest request = getObjectExample();
    request.headers.emplace_back("X-Amz-Date", "19990101T000000Z");
    request.headers.emplace_back("Host", "evil.example");
    request.headers.emplace_back("authorization", "forged");
    const auto headers = signV4(request, kS3Example, "us-east-1", "s3", kS3Time);
    QCOMPARE(signatureOf(headers), std::string("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    QCOMPARE(headerValue(headers, "x-amz-date"), std::string("20130524T000000Z"));
}

void SigV4Test::amzDateFormat()
{
    QCOMPARE(amzDate(kS3Time), std::string("20130524T000000Z"));
    QCOMPARE(amzDate(kIamTime), std::string("20150830T123600Z"));
    QCOMPARE(amzDate(system_clock::time_point{}), std::string("19700101T000000Z"));
    // Sub-second parts are dropped, never rounded up into the next second.
    QCOMPARE(amzDate(sys_days{year{2000} / 2 / 29} + hours{23} + minutes{59} + seconds{59} + milliseconds{999}),
             std::string("20000229T235959Z"));
    QCOMPARE(amzDate(sys_days{year{2099} / 12 / 31} + hours{7} + minutes{5} + seconds{3}),
             std::string("20991231T070503Z"));
}

void SigV4Test::fixedTimeIsDeterministic()
{
    Credentials credentials = kS3Example;
    credentials.sessionToken = "t";
    SignedRequest request{"PUT",
                          "127.0.0.1:4569",
                          "/bucket/a b/ü",
                          {{"uploadId", "x"}, {"partNumber", "3"}},
                          {{"content-type", "application/octet-stream"}},
                          std::string(kUnsignedPayload)};
    const auto first = signV4(request, credentials, "us-east-1", "s3", kIamTime);
    const auto second = signV4(request, credentials, "us-east-1", "s3", kIamTime);
    QCOMPARE(first, second);
    QCOMPARE(headerValue(first, "x-amz-content-sha256"), std::string("UNSIGNED-PAYLOAD"));
    QCOMPARE(signedHeadersOf(first),
             std::string("content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token"));

    // A second later, another region, another host: another signature.
    const auto later = signV4(request, credentials, "us-east-1", "s3", kIamTime + seconds{1});
    QVERIFY(signatureOf(later) != signatureOf(first));
    QVERIFY(signatureOf(signV4(request, credentials, "eu-west-1", "s3", kIamTime)) != signatureOf(first));
    request.host = "127.0.0.1:4570";
    QVERIFY(signatureOf(signV4(request, credentials, "us-east-1", "s3", kIamTime)) != signatureOf(first));
}

void SigV4Test::sha256OfKnownInputs()
{
    QCOMPARE(sha256Hex(""), std::string(kEmptyPayloadHash));
    QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    // RFC 4231 test case 2.
    QCOMPARE(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
             std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

} // namespace strata::s3

QTEST_GUILESS_MAIN(strata::s3::SigV4Test)
#include "test_sigv4.moc"
