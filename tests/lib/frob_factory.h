#pragma once

// A backend no code of Strata knows, for the tests that show a registered backend appears
// wherever backends are listed (help, man page, the connection dialog) and is read and
// written only through its own description. It cannot be opened.
#include "core/storage/registry.h"

namespace strata::test {

class FrobFactory final : public BackendFactory {
public:
    std::string scheme() const override { return "frob"; }
    std::string example() const override { return "frob://BOX/PATH"; }
    BackendDescription describe() const override
    {
        return {"Frobnicator box",
                {"frob://BOX/PATH"},
                "A box that frobnicates.",
                {{"speed", "N", "Frobnicate N times a second."}, {"gentle", "", "Frobnicate gently."}},
                {{"box", "&Box:", FormField::Kind::Text, "a box's name", "crate"},
                 {"owner", "&Owner:", FormField::Kind::Text, {}, {}, true},
                 {"token", "&Token:", FormField::Kind::Secret, {}, {}},
                 {"gentle", "&Gently", FormField::Kind::Flag, {}, "1"}}};
    }
    Result<FormConnection> fromForm(const FormAnswers &answers) const override
    {
        const std::string box = form::answer(answers, "box");
        if (box.empty() || box.find('/') != std::string::npos)
            return Error(ErrorKind::InvalidInput, "A box has a name without '/'");
        auto uri = Uri::parse("frob://" + box + "/" + (form::answer(answers, "gentle").empty() ? "" : "?gentle"));
        if (!uri)
            return std::move(uri).error();
        return FormConnection{*uri, form::answer(answers, "owner"), form::answer(answers, "token")};
    }
    FormAnswers toForm(const Uri &uri) const override
    {
        return {{"box", uri.host()}, {"gentle", uri.queryValue("gentle") ? "1" : ""}};
    }
    Result<std::shared_ptr<Backend>> create(const Uri &, const Target &, const ConnectionSecret &) override
    {
        return Error(ErrorKind::Unsupported, "a frobnicator cannot be opened");
    }

private:
    Result<Target> locate(const Uri &uri) override { return Target{"frob://" + uri.host(), uri.path()}; }
};

} // namespace strata::test
