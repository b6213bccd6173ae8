#include "core/transfer/transfer_spec.h"

#include <QCryptographicHash>
#include <QJsonArray>

namespace strata {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

QJsonObject TransferSpec::toJson() const
{
    QJsonArray src;
    for (const auto &s : sources)
        src.append(qs(s));
    const auto &o = options;
    QJsonObject opts{
        {QStringLiteral("mode"), int(o.mode)},
        {QStringLiteral("recursive"), o.recursive},
        {QStringLiteral("existing"), int(o.existing)},
        {QStringLiteral("verify"), o.verify},
        {QStringLiteral("deleteExtra"), o.deleteExtra},
        {QStringLiteral("dryRun"), o.dryRun},
        {QStringLiteral("compareContent"), o.compareContent},
        {QStringLiteral("jobs"), o.jobs},
        {QStringLiteral("partsInFlight"), o.partsInFlight},
        {QStringLiteral("partSize"), qint64(o.partSize)},
        {QStringLiteral("chunkSize"), qint64(o.chunkSize)},
        {QStringLiteral("maxBytesInFlight"), qint64(o.maxBytesInFlight)},
        {QStringLiteral("bandwidthLimit"), qint64(o.bandwidthLimit)},
        {QStringLiteral("zstdLevel"), o.zstdLevel},
        {QStringLiteral("zstdThreads"), o.zstdThreads},
        {QStringLiteral("sync"), o.sync},
    };
    if (o.destinationIgnoresCase)
        opts.insert(QStringLiteral("destinationIgnoresCase"), *o.destinationIgnoresCase);
    return {{QStringLiteral("sources"), src}, {QStringLiteral("destination"), qs(destination)},
            {QStringLiteral("options"), opts}};
}

Result<TransferSpec> TransferSpec::fromJson(const QJsonObject &json)
{
    TransferSpec spec;
    for (const auto &v : json.value(QStringLiteral("sources")).toArray())
        spec.sources.push_back(v.toString().toStdString());
    spec.destination = json.value(QStringLiteral("destination")).toString().toStdString();
    if (spec.sources.empty() || spec.destination.empty())
        return Error(ErrorKind::Corrupt, "the transfer journal names no source or no destination");
    const auto o = json.value(QStringLiteral("options")).toObject();
    auto &t = spec.options;
    auto num = [&](const char *key, auto fallback) {
        return decltype(fallback)(o.value(QLatin1String(key)).toInteger(qint64(fallback)));
    };
    t.mode = TransferMode(num("mode", int(t.mode)));
    t.recursive = o.value(QStringLiteral("recursive")).toBool();
    t.existing = ExistingPolicy(num("existing", int(t.existing)));
    t.verify = o.value(QStringLiteral("verify")).toBool();
    t.deleteExtra = o.value(QStringLiteral("deleteExtra")).toBool();
    t.dryRun = o.value(QStringLiteral("dryRun")).toBool();
    if (const auto ignoresCase = o.value(QStringLiteral("destinationIgnoresCase")); ignoresCase.isBool())
        t.destinationIgnoresCase = ignoresCase.toBool();
    t.compareContent = o.value(QStringLiteral("compareContent")).toBool();
    t.jobs = num("jobs", t.jobs);
    t.partsInFlight = num("partsInFlight", t.partsInFlight);
    t.partSize = num("partSize", t.partSize);
    t.chunkSize = num("chunkSize", t.chunkSize);
    t.maxBytesInFlight = num("maxBytesInFlight", t.maxBytesInFlight);
    t.bandwidthLimit = num("bandwidthLimit", t.bandwidthLimit);
    t.zstdLevel = num("zstdLevel", t.zstdLevel);
    t.zstdThreads = num("zstdThreads", t.zstdThreads);
    t.sync = o.value(QStringLiteral("sync")).toBool();
    if (t.partSize == 0 || t.chunkSize == 0 || t.maxBytesInFlight < t.chunkSize || t.partsInFlight < 1)
        return Error(ErrorKind::Corrupt, "the transfer journal has impossible sizes");
    return spec;
}

std::string TransferSpec::identity() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const auto &s : sources) {
        hash.addData(QByteArrayView(s.data(), qsizetype(s.size())));
        hash.addData(QByteArrayView("\n", 1));
    }
    hash.addData(QByteArrayView(destination.data(), qsizetype(destination.size())));
    const char kind[] = {char('0' + int(options.mode)), char('0' + int(options.recursive)),
                         char('0' + int(options.deleteExtra))};
    hash.addData(QByteArrayView(kind, 3));
    return hash.result().toHex().left(32).toStdString();
}

} // namespace strata
