#include "core/transfer/transfer_spec.h"

#include "core/io/hash.h"

namespace strata {

json::Object TransferSpec::toJson() const
{
    json::Array src(sources.begin(), sources.end());
    const auto &o = options;
    json::Object opts{
        {"mode", int(o.mode)},
        {"recursive", o.recursive},
        {"existing", int(o.existing)},
        {"verify", o.verify},
        {"deleteExtra", o.deleteExtra},
        {"dryRun", o.dryRun},
        {"compareContent", o.compareContent},
        {"jobs", o.jobs},
        {"partsInFlight", o.partsInFlight},
        {"partSize", o.partSize},
        {"chunkSize", o.chunkSize},
        {"maxBytesInFlight", o.maxBytesInFlight},
        {"bandwidthLimit", o.bandwidthLimit},
        {"zstdLevel", o.zstdLevel},
        {"zstdThreads", o.zstdThreads},
        {"sync", o.sync},
    };
    if (o.preserveMode)
        opts.emplace("preserveMode", true);
    if (o.destinationIgnoresCase)
        opts.emplace("destinationIgnoresCase", *o.destinationIgnoresCase);
    return {{"sources", std::move(src)}, {"destination", destination}, {"options", std::move(opts)}};
}

Result<TransferSpec> TransferSpec::fromJson(const json::Value &json)
{
    TransferSpec spec;
    for (const auto &v : json["sources"].toArray())
        spec.sources.push_back(v.toString());
    spec.destination = json["destination"].toString();
    if (spec.sources.empty() || spec.destination.empty())
        return Error(ErrorKind::Corrupt, "the transfer journal names no source or no destination");
    const auto &o = json["options"];
    auto &t = spec.options;
    auto num = [&](const char *key, auto fallback) {
        return decltype(fallback)(o[key].toInt(std::int64_t(fallback)));
    };
    t.mode = TransferMode(num("mode", int(t.mode)));
    t.recursive = o["recursive"].toBool();
    t.existing = ExistingPolicy(num("existing", int(t.existing)));
    t.verify = o["verify"].toBool();
    t.deleteExtra = o["deleteExtra"].toBool();
    t.dryRun = o["dryRun"].toBool();
    if (const auto &ignoresCase = o["destinationIgnoresCase"]; ignoresCase.isBool())
        t.destinationIgnoresCase = ignoresCase.toBool();
    t.compareContent = o["compareContent"].toBool();
    t.jobs = num("jobs", t.jobs);
    t.partsInFlight = num("partsInFlight", t.partsInFlight);
    t.partSize = num("partSize", t.partSize);
    t.chunkSize = num("chunkSize", t.chunkSize);
    t.maxBytesInFlight = num("maxBytesInFlight", t.maxBytesInFlight);
    t.bandwidthLimit = num("bandwidthLimit", t.bandwidthLimit);
    t.zstdLevel = num("zstdLevel", t.zstdLevel);
    t.zstdThreads = num("zstdThreads", t.zstdThreads);
    t.sync = o["sync"].toBool();
    t.preserveMode = o["preserveMode"].toBool();
    if (t.partSize == 0 || t.chunkSize == 0 || t.maxBytesInFlight < t.chunkSize || t.partsInFlight < 1)
        return Error(ErrorKind::Corrupt, "the transfer journal has impossible sizes");
    return spec;
}

std::string TransferSpec::identity() const
{
    Sha256 hash;
    for (const auto &s : sources) {
        hash.add(s);
        hash.add("\n");
    }
    hash.add(destination);
    const char kind[] = {char('0' + int(options.mode)), char('0' + int(options.recursive)),
                         char('0' + int(options.deleteExtra))};
    hash.add({kind, 3});
    return toHex(hash.finish()).substr(0, 32);
}

} // namespace strata
