// Error values: the sentence a user sees, errno mapping, identifiers, context.
#include "tests/unit/unit_checks.h"

#include "core/storage/error.h"

#include <QTest>

#include <cerrno>
#include <cstring>
#include <set>

namespace strata {

namespace {

constexpr int kKindCount = int(ErrorKind::Busy) + 1;

ErrorKind kindAt(int i)
{
    return static_cast<ErrorKind>(i);
}

constexpr std::string_view kTemporaryHint = "this may be temporary";

} // namespace

class TestError : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultIsUnexpectedAndPermanent();
    void messageWithOperationUriKindAndCause();
    void messageWithoutOperation();
    void messageWithoutContext();
    void invalidInputExplainsWithItsCause();
    void temporaryHintOnlyForTemporaryErrors();
    void temporaryFlagCanBeOverridden();
    void errnoMapping_data();
    void errnoMapping();
    void errnoDetailIsKept();
    void identifiersUniquePerKind();
    void descriptionsUniquePerKind();
    void withContextFillsOnlyWhatIsMissing();
};

void TestError::defaultIsUnexpectedAndPermanent()
{
    Error e;
    QCOMPARE(e.kind(), ErrorKind::Unexpected);
    QVERIFY(!e.temporary());
    QVERIFY(e.operation().empty());
    QVERIFY(e.uri().empty());
    QCOMPARE(e.message(), std::string("an unexpected error occurred"));
}

void TestError::messageWithOperationUriKindAndCause()
{
    Error e(ErrorKind::NotFound, "no such object");
    e.setOperation("read").setUri("memory://demo/a.txt");
    QCOMPARE(e.message(), std::string("cannot read memory://demo/a.txt: it does not exist (no such object)"));

    Error space(ErrorKind::NoSpace, "No space left on device");
    space.setOperation("write").setUri("file:///mnt/small/x.img");
    QCOMPARE(space.message(),
             std::string(
                 "cannot write file:///mnt/small/x.img: no space left on the destination (No space left on device)"));

    Error noCause(ErrorKind::PermissionDenied);
    noCause.setOperation("list").setUri("file:///root");
    QCOMPARE(noCause.message(), std::string("cannot list file:///root: permission denied"));
}

void TestError::messageWithoutOperation()
{
    Error e(ErrorKind::IsDirectory);
    e.setUri("memory://demo/docs");
    QCOMPARE(e.message(), std::string("memory://demo/docs: it is a directory"));

    Error opOnly(ErrorKind::Unsupported, "renaming is not available on this storage");
    opOnly.setOperation("rename");
    QCOMPARE(
        opOnly.message(),
        std::string("cannot rename: this storage does not support it (renaming is not available on this storage)"));
}

void TestError::messageWithoutContext()
{
    QCOMPARE(Error(ErrorKind::AlreadyExists).message(), std::string("it already exists"));
    QCOMPARE(Error(ErrorKind::Corrupt, "checksum mismatch").message(),
             std::string("the data is corrupt (checksum mismatch)"));
}

void TestError::invalidInputExplainsWithItsCause()
{
    Error e(ErrorKind::InvalidInput, "the port must be a number from 1 to 65535");
    e.setOperation("parse URI");
    QCOMPARE(e.message(), std::string("cannot parse URI: the port must be a number from 1 to 65535"));
    // Without a cause, the kind's description stands in.
    QCOMPARE(Error(ErrorKind::InvalidInput).message(), std::string("invalid input"));
    QCOMPARE(Error(ErrorKind::Unexpected, "EIO from the disk").message(), std::string("EIO from the disk"));
}

void TestError::temporaryHintOnlyForTemporaryErrors()
{
    const std::set<ErrorKind> temporary = {ErrorKind::RateLimited, ErrorKind::Timeout, ErrorKind::Network,
                                           ErrorKind::Busy};
    for (int i = 0; i < kKindCount; ++i) {
        Error e(kindAt(i), "detail");
        e.setOperation("stat").setUri("s3://bucket/key");
        const bool expected = temporary.count(kindAt(i)) == 1;
        QCOMPARE(isTemporaryByDefault(kindAt(i)), expected);
        QCOMPARE(e.temporary(), expected);
        const std::string message = e.message();
        QVERIFY2((message.find(kTemporaryHint) != std::string::npos) == expected, message.c_str());
        QVERIFY2(message.starts_with("cannot stat s3://bucket/key: "), message.c_str());
    }
}

void TestError::temporaryFlagCanBeOverridden()
{
    Error timeout(ErrorKind::Timeout);
    QVERIFY(timeout.message().find(kTemporaryHint) != std::string::npos);
    timeout.setTemporary(false);
    QVERIFY(!timeout.temporary());
    QVERIFY(timeout.message().find(kTemporaryHint) == std::string::npos);

    Error notFound(ErrorKind::NotFound);
    notFound.setTemporary(true);
    QVERIFY(notFound.message().find(kTemporaryHint) != std::string::npos);
    QVERIFY(notFound.message().ends_with("; this may be temporary, try again"));
}

void TestError::errnoMapping_data()
{
    QTest::addColumn<int>("err");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("temporary");
    auto row = [](const char *name, int err, ErrorKind kind, bool temporary) {
        QTest::newRow(name) << err << int(kind) << temporary;
    };
    row("ENOENT", ENOENT, ErrorKind::NotFound, false);
    row("EACCES", EACCES, ErrorKind::PermissionDenied, false);
    row("EPERM", EPERM, ErrorKind::PermissionDenied, false);
    row("EROFS", EROFS, ErrorKind::PermissionDenied, false);
    row("ENOSPC", ENOSPC, ErrorKind::NoSpace, false);
    row("EDQUOT", EDQUOT, ErrorKind::NoSpace, false);
    row("EFBIG", EFBIG, ErrorKind::NoSpace, false);
    row("EISDIR", EISDIR, ErrorKind::IsDirectory, false);
    row("ENOTDIR", ENOTDIR, ErrorKind::NotDirectory, false);
    row("ENOTEMPTY", ENOTEMPTY, ErrorKind::DirectoryNotEmpty, false);
    row("EEXIST", EEXIST, ErrorKind::AlreadyExists, false);
    row("ETIMEDOUT", ETIMEDOUT, ErrorKind::Timeout, true);
    row("EAGAIN", EAGAIN, ErrorKind::Busy, true);
    row("EBUSY", EBUSY, ErrorKind::Busy, true);
    row("EINVAL", EINVAL, ErrorKind::InvalidInput, false);
    row("ENAMETOOLONG", ENAMETOOLONG, ErrorKind::InvalidInput, false);
    row("ENOSYS", ENOSYS, ErrorKind::Unsupported, false);
    row("EOPNOTSUPP", EOPNOTSUPP, ErrorKind::Unsupported, false);
    row("EIO", EIO, ErrorKind::Unexpected, false);
    row("unknown", EPROTO, ErrorKind::Unexpected, false);
}

void TestError::errnoMapping()
{
    QFETCH(int, err);
    QFETCH(int, kind);
    QFETCH(bool, temporary);
    Error e = errorFromErrno(err);
    QCOMPARE(e.kind(), ErrorKind(kind));
    QCOMPARE(e.temporary(), temporary);
    QCOMPARE(e.cause(), std::string(std::strerror(err)));
}

void TestError::errnoDetailIsKept()
{
    Error e = errorFromErrno(ENOENT, "while opening the root directory");
    QCOMPARE(e.cause(), std::string(std::strerror(ENOENT)) + ", while opening the root directory");
    e.setOperation("open").setUri("file:///srv/data");
    QCOMPARE(e.message(),
             "cannot open file:///srv/data: it does not exist (" + std::string(std::strerror(ENOENT))
                 + ", while opening the root directory)");
}

void TestError::identifiersUniquePerKind()
{
    std::set<std::string_view> seen;
    for (int i = 0; i < kKindCount; ++i) {
        const std::string_view id = identifier(kindAt(i));
        QVERIFY(!id.empty());
        // Stable, machine-friendly: lower case words joined by '-'.
        for (char c : id)
            QVERIFY2((c >= 'a' && c <= 'z') || c == '-', std::string(id).c_str());
        QVERIFY2(seen.insert(id).second, std::string(id).c_str());
    }
    QCOMPARE(int(seen.size()), kKindCount);
    QCOMPARE(identifier(ErrorKind::NotFound), std::string_view("not-found"));
    QCOMPARE(identifier(ErrorKind::NoSpace), std::string_view("no-space"));
}

void TestError::descriptionsUniquePerKind()
{
    std::set<std::string_view> seen;
    for (int i = 0; i < kKindCount; ++i) {
        const std::string_view text = describe(kindAt(i));
        QVERIFY(!text.empty());
        QVERIFY2(seen.insert(text).second, std::string(text).c_str());
    }
}

void TestError::withContextFillsOnlyWhatIsMissing()
{
    Error deep(ErrorKind::NotFound);
    deep.setOperation("stat").setUri("memory://a/x");
    deep.withContext("read", "memory://b/y");
    QCOMPARE(deep.operation(), std::string("stat"));
    QCOMPARE(deep.uri(), std::string("memory://a/x"));

    Error bare(ErrorKind::NotFound);
    bare.withContext("read", "memory://b/y");
    QCOMPARE(bare.operation(), std::string("read"));
    QCOMPARE(bare.uri(), std::string("memory://b/y"));

    Error opOnly(ErrorKind::NotFound);
    opOnly.setOperation("copy");
    opOnly.withContext("read", "memory://b/y");
    QCOMPARE(opOnly.operation(), std::string("copy"));
    QCOMPARE(opOnly.uri(), std::string("memory://b/y"));

    Error uriOnly(ErrorKind::NotFound);
    uriOnly.setUri("memory://a/x");
    uriOnly.withContext("read", "memory://b/y");
    QCOMPARE(uriOnly.operation(), std::string("read"));
    QCOMPARE(uriOnly.uri(), std::string("memory://a/x"));
    QCOMPARE(uriOnly.message(), std::string("cannot read memory://a/x: it does not exist"));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestError)
#include "test_error.moc"
