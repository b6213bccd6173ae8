// A directory listing as a hostile FTP server might send it, line by line through both
// parsers (MLSD facts and LIST's Unix and DOS forms), and the MDTM/modify time parser.
#include "backends/ftp/ftp_listing.h"
#include "tests/fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    std::string_view text(reinterpret_cast<const char *>(data), size);
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (auto m = ftp::parseMlsxLine(line)) {
            // The name is what follows the facts, never more than the line.
            FUZZ_CHECK(m->name.size() < line.size());
            FUZZ_CHECK(line.find(m->name) != std::string_view::npos);
            FUZZ_CHECK(m->entry.kind != EntryKind::Directory || m->entry.size == 0);
            FUZZ_CHECK(!m->entry.mode || *m->entry.mode <= 07777);
        }
        for (std::time_t now : {std::time_t(0), std::time_t(1796336990)}) {
            if (auto l = ftp::parseListLine(line, now)) {
                FUZZ_CHECK(l->name.size() < line.size());
                FUZZ_CHECK(line.find(l->name) != std::string_view::npos);
                FUZZ_CHECK(!l->entry.mode || *l->entry.mode <= 07777);
            }
        }
        if (auto t = ftp::parseFtpTime(line); t && line.size() == 14) {
            // A whole-second time prints back as it was read, for any valid date.
            const std::string again = ftp::formatFtpTime(*t);
            FUZZ_CHECK(ftp::parseFtpTime(again) == t);
        }
    }
    return 0;
}
