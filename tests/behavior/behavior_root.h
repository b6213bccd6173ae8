#pragma once

#include "core/storage/registry.h"

#include <string>

namespace strata {

// The fresh, random place one behaviour run works in, on the backend named by
// STRATA_TEST_BACKEND (memory, file, …) below STRATA_TEST_URI when set.
// Sets the KEY=VALUE lines of a file as environment variables (fixture env files).
void loadEnvFile(const std::string &path);
// Where a run on `backend` (s3, webdav, sftp) may write on the server a CTest fixture
// started (its env file named by STRATA_S3_ENVFILE, _WEBDAV_, _SFTP_); empty when none.
std::string fixtureServerUri(const std::string &backend);

class BehaviorRoot {
public:
    BehaviorRoot();
    ~BehaviorRoot();

    Registry &registry() { return m_registry; }
    Operator &op() { return *m_location.op; }
    const std::string &backendName() const { return m_backend; }
    // The backend path of `relative` below the run's root.
    std::string path(std::string_view relative) const;
    bool ok() const { return m_location.op != nullptr; }
    const std::string &problem() const { return m_problem; }
    Capabilities caps() const { return m_location.op->capabilities(); }

private:
    Registry m_registry;
    Location m_location;
    std::string m_backend;
    std::string m_localDir; // file runs: the temporary directory to delete afterwards
    std::string m_problem;
};

} // namespace strata
