// benchstat's statistics: quantiles, medians and their order-statistic confidence
// intervals, the geometric mean, and the Mann-Whitney U test (exact for small samples,
// ties included). Mirrors golang.org/x/perf/benchmath and go-moremath operation for
// operation so that printed figures and p-values come out as benchstat's do.
#include "core/bench/benchstat.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>

namespace strata {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// mathx.Choose: exact below 21, exp(lgamma) above (the CI's left/right tie-breaking
// depends on those last bits, so they are reproduced, not improved).
double goChoose(int n, int k)
{
    if (k == 0 || k == n)
        return 1;
    if (k < 0 || n < k)
        return 0;
    if (n <= 20) {
        std::int64_t numer = 1;
        for (std::int64_t n1 = n - (k - 1); n1 <= n; ++n1)
            numer *= n1;
        std::int64_t denom = 1;
        for (std::int64_t i = 2; i <= k; ++i)
            denom *= i;
        const std::int64_t exact = numer / denom; // numer is a multiple of denom
        return double(exact);
    }
    const double a = std::lgamma(double(n + 1));
    const double b = std::lgamma(double(k + 1));
    const double c = std::lgamma(double(n - k + 1));
    return std::exp(a - b - c);
}

// BinomialDist.PMF
double binomialPmf(int n, double p, double k)
{
    const int ki = int(std::floor(k));
    if (ki < 0 || ki > n)
        return 0;
    return goChoose(n, ki) * std::pow(p, double(ki)) * std::pow(1 - p, double(n - ki));
}

// NormalDist.CDF
double normalCdf(double x, double mu, double sigma)
{
    return std::erfc(-(x - mu) / (sigma * std::numbers::sqrt2)) / 2;
}

// NormalDist.InvCDF: Acklam's rational approximation plus one refinement step.
double normalInvCdf(double p, double mu, double sigma)
{
    constexpr double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02, a3 = -2.759285104469687e+02,
                     a4 = 1.383577518672690e+02, a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
    constexpr double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02, b3 = -1.556989798598866e+02,
                     b4 = 6.680131188771972e+01, b5 = -1.328068155288572e+01;
    constexpr double c1 = -7.784894002430293e-03, c2 = -3.223964580411365e-01, c3 = -2.400758277161838e+00,
                     c4 = -2.549732539343734e+00, c5 = 4.374664141464968e+00, c6 = 2.938163982698783e+00;
    constexpr double d1 = 7.784695709041462e-03, d2 = 3.224671290700398e-01, d3 = 2.445134137142996e+00,
                     d4 = 3.754408661907416e+00;
    constexpr double plow = 0.02425, phigh = 1 - plow;
    if (p < 0 || p > 1)
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0)
        return -kInf;
    if (p == 1)
        return kInf;
    double x;
    if (p < plow) {
        const double q = std::sqrt(-2 * std::log(p));
        x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else if (phigh < p) {
        const double q = std::sqrt(-2 * std::log(1 - p));
        x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else {
        const double q = p - 0.5;
        const double r = q * q;
        x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q
            / (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1);
    }
    const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
    return x * sigma + mu;
}

double sign(double x)
{
    return x == 0 ? 0 : (x < 0 ? -1 : 1);
}

// UDist.p: the Mann-Whitney recurrence p_{n,m}(U) for U = 0..u (no ties), by dynamic
// programming over one row of the (n, m) plane.
std::vector<double> uDistP(int n1, int n2, int u)
{
    int nn = n1, mm = n2;
    if (nn > mm)
        std::swap(nn, mm);
    std::vector<std::vector<double>> memo(std::size_t(nn + 1), std::vector<double>(std::size_t(u + 1), 0.0));
    for (int m = 0; m <= mm; ++m) {
        memo[0][0] = 1;
        const int nlim = std::min(nn, m);
        for (int n = 1; n <= nlim; ++n) {
            const auto &lp = memo[std::size_t(n - 1)];
            const auto &rp = n <= m - 1 ? memo[std::size_t(n)] : memo[std::size_t(m - 1)];
            const int ulim = std::min(n * m, u);
            auto &out = memo[std::size_t(n)];
            const double nplusm = double(n + m);
            for (int u1 = ulim; u1 >= 0; --u1) {
                double l = 0;
                if (u1 - m >= 0)
                    l = double(n) * lp[std::size_t(u1 - m)];
                const double r = double(m) * rp[std::size_t(u1)];
                out[std::size_t(u1)] = (l + r) / nplusm;
            }
        }
    }
    return memo[std::size_t(nn)];
}

std::int64_t chooseInt(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    k = std::min(k, n - k);
    std::int64_t r = 1;
    for (int i = 1; i <= k; ++i)
        r = r * (n - k + i) / i;
    return r;
}

// UDist.CDF with ties: the number of ways to draw sample 1 (n1 values) from the tied rank
// groups t with 2·U1 ≤ twoU, over all C(N, n1) ways. Group k of size t_k contributes
// r_k·(2·(values before it) + t_k) to 2·U1 + n1² when r_k of its members are in sample 1
// (twice its mid-rank, less one, per member) — the count Cheung and Klotz's recurrence
// builds, here by a plain sweep over the groups.
double uDistCdfTies(int n1, int n2, const std::vector<int> &t, int twoU)
{
    if (t.size() == 2) {
        // go-moremath's two-group base case, kept as it is: its upper bound divides with
        // truncation, so when 2U lies below the least reachable value it still counts the
        // arrangement r2 = 0 (and p can exceed 1). benchstat prints what it computes.
        double count = 0;
        const int r2High = (twoU - n1 * (t[0] - n1)) / (t[0] + t[1]);
        for (int r2 = std::max(0, n1 - t[0]); r2 <= r2High; ++r2)
            count += double(chooseInt(t[0], n1 - r2) * chooseInt(t[1], r2));
        return count / double(chooseInt(n1 + n2, n1));
    }
    // ways[j][s]: arrangements choosing j values so far with Σ r_k·a_k = s.
    const int n = n1 + n2;
    const std::size_t maxS = 2 * std::size_t(n) * std::size_t(n1) + 1;
    std::vector<std::vector<double>> ways(std::size_t(n1 + 1), std::vector<double>(maxS, 0.0));
    ways[0][0] = 1;
    int before = 0;
    for (const int tk : t) {
        const int a = 2 * before + tk;
        for (int j = n1; j >= 0; --j) { // downwards, so each group is used once
            for (std::size_t s = 0; s < maxS; ++s) {
                const double count = ways[std::size_t(j)][s];
                if (count == 0)
                    continue;
                for (int r = 1; r <= tk && j + r <= n1; ++r)
                    ways[std::size_t(j) + std::size_t(r)][s + std::size_t(r) * std::size_t(a)] +=
                        count * double(chooseInt(tk, r));
            }
        }
        before += tk;
    }
    double count = 0;
    for (std::size_t s = 0; s < maxS; ++s) {
        if (int(s) - n1 * n1 <= twoU)
            count += ways[std::size_t(n1)][s];
    }
    return count / double(chooseInt(n1 + n2, n1));
}

// UDist.CDF without ties.
double uDistCdf(int n1, int n2, double u)
{
    if (u < 0)
        return 0;
    if (u >= double(n1 * n2))
        return 1;
    int ui = int(std::floor(u));
    const bool flip = ui >= (n1 * n2 + 1) / 2;
    if (flip)
        ui = n1 * n2 - ui - 1;
    const auto pdfs = uDistP(n1, n2, ui);
    double p = 0;
    for (int i = 0; i <= ui; ++i)
        p += pdfs[std::size_t(i)];
    return flip ? 1 - p : p;
}

constexpr int kMannWhitneyExactLimit = 50;
constexpr int kMannWhitneyTiesExactLimit = 25;

} // namespace

double quantile(std::span<const double> xs, double q)
{
    if (xs.empty())
        return std::numeric_limits<double>::quiet_NaN();
    if (q <= 0)
        return xs.front();
    if (q >= 1)
        return xs.back();
    const double n = 1 / 3.0 + q * (double(xs.size()) + 1 / 3.0);
    double kf = 0;
    const double frac = std::modf(n, &kf);
    const auto k = std::int64_t(kf);
    if (k <= 0)
        return xs.front();
    if (k >= std::int64_t(xs.size()))
        return xs.back();
    return xs[std::size_t(k - 1)] + frac * (xs[std::size_t(k)] - xs[std::size_t(k - 1)]);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return quantile(values, 0.5);
}

double geomean(std::span<const double> values)
{
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double m = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] <= 0)
            return std::numeric_limits<double>::quiet_NaN();
        m += (std::log(values[i]) - m) / double(i + 1);
    }
    return std::exp(m);
}

OrderStatisticCI quantileCI(int n, double q, double confidence)
{
    OrderStatisticCI res;
    if (confidence >= 1) {
        res.confidence = 1;
        res.loOrder = 0;
        res.hiOrder = n + 1;
        return res;
    }
    // The number of sample values below the population quantile is Binomial(n, q):
    // PMF(k) is the chance that the quantile lies between order statistics k and k+1.
    int l = 0, r = 0;
    if (n <= 30) {
        // From the mode outwards, always taking the likelier side (the left on a tie),
        // until the confidence is reached.
        int x = int(std::ceil(double(n + 1) * q) - 1);
        if (q == 0)
            x = 0;
        double accum = binomialPmf(n, q, x);
        l = x;
        r = x + 1;
        double lp = binomialPmf(n, q, l - 1), rp = binomialPmf(n, q, r);
        res.ambiguous = rp == accum;
        while (accum < confidence && (lp > 0 || rp > 0)) {
            res.ambiguous = lp == rp;
            if (lp >= rp) {
                accum += lp;
                --l;
                lp = binomialPmf(n, q, l - 1);
            } else {
                accum += rp;
                ++r;
                rp = binomialPmf(n, q, r);
            }
        }
        res.confidence = accum;
    } else {
        const double mu = double(n) * q;
        const double sigma = std::sqrt(double(n) * q * (1 - q));
        const double alpha = (1 - confidence) / 2;
        const double l1 = normalInvCdf(alpha, mu, sigma);
        const double r1 = 2 * mu - l1;
        // Band k of the binomial is [k-0.5, k+0.5] of the normal: round out to those edges.
        l = int(std::floor(std::floor(l1 - 0.5) + 0.5)) + 1;
        r = int(std::floor(std::ceil(r1 - 0.5) + 0.5)) + 1;
        auto cdf = [&](int lo, int hi) {
            return normalCdf(double(hi) - 0.5, mu, sigma) - normalCdf(double(lo) - 0.5, mu, sigma);
        };
        res.confidence = cdf(l, r);
        const int rBiased = r - 1;
        if (const double biased = cdf(l, rBiased); biased >= confidence && biased < res.confidence) {
            res.confidence = biased;
            res.ambiguous = true;
            r = rBiased;
        }
        if (l <= 0 && r >= n + 1) {
            res.confidence = 1;
            res.ambiguous = false;
        }
    }
    res.loOrder = std::max(l, 0);
    res.hiOrder = std::min(r, n + 1);
    return res;
}

Result<MannWhitneyResult> mannWhitneyUTest(std::span<const double> x1In, std::span<const double> x2In)
{
    const int n1 = int(x1In.size()), n2 = int(x2In.size());
    if (n1 == 0 || n2 == 0)
        return Error(ErrorKind::InvalidInput, "sample is too small");
    // A NaN equals nothing, itself included: the tie groups below would never end.
    const auto isNaN = [](double v) { return std::isnan(v); };
    if (std::any_of(x1In.begin(), x1In.end(), isNaN) || std::any_of(x2In.begin(), x2In.end(), isNaN))
        return Error(ErrorKind::InvalidInput, "a sample holds NaN");
    std::vector<double> x1(x1In.begin(), x1In.end()), x2(x2In.begin(), x2In.end());
    std::sort(x1.begin(), x1.end());
    std::sort(x2.begin(), x2.end());

    // Merge, remembering which sample each value came from.
    std::vector<double> merged;
    std::vector<int> labels;
    merged.reserve(std::size_t(n1) + std::size_t(n2));
    labels.reserve(std::size_t(n1) + std::size_t(n2));
    std::size_t i = 0, j = 0;
    while (i < x1.size() && j < x2.size()) {
        if (x1[i] < x2[j]) {
            merged.push_back(x1[i++]);
            labels.push_back(1);
        } else {
            merged.push_back(x2[j++]);
            labels.push_back(2);
        }
    }
    for (; i < x1.size(); ++i) {
        merged.push_back(x1[i]);
        labels.push_back(1);
    }
    for (; j < x2.size(); ++j) {
        merged.push_back(x2[j]);
        labels.push_back(2);
    }

    // Rank sum of sample 1 with tied values sharing their mean rank; t holds the tie groups.
    double r1 = 0;
    std::vector<int> t;
    bool hasTies = false;
    for (std::size_t k = 0; k < merged.size();) {
        const std::size_t rank1 = k + 1;
        const double v1 = merged[k];
        int nx1 = 0;
        for (; k < merged.size() && merged[k] == v1; ++k) {
            if (labels[k] == 1)
                ++nx1;
        }
        if (nx1 != 0)
            r1 += double(k + rank1) / 2 * nx1;
        t.push_back(int(k - rank1 + 1));
        if (k > rank1)
            hasTies = true;
    }
    const double u1 = r1 - double(n1 * (n1 + 1)) / 2;
    const double u2 = double(n1 * n2) - u1;
    const double usmall = std::min(u1, u2);

    double p = 0;
    if ((!hasTies && n1 <= kMannWhitneyExactLimit && n2 <= kMannWhitneyExactLimit)
        || (hasTies && n1 <= kMannWhitneyTiesExactLimit && n2 <= kMannWhitneyTiesExactLimit)) {
        if (t.size() == 1)
            return Error(ErrorKind::InvalidInput, "all samples are equal");
        if (u1 == u2) {
            // The distribution is symmetric about U; doubling CDF(U) would count its
            // mass twice.
            p = 1;
        } else if (hasTies) {
            p = usmall >= double(n1 * n2) ? 2 : uDistCdfTies(n1, n2, t, int(2 * usmall)) * 2;
        } else {
            p = uDistCdf(n1, n2, usmall) * 2;
        }
    } else {
        double tie = 0;
        for (const int k : t)
            tie += double(k * k * k - k);
        const double nn = double(n1 + n2);
        const double muU = double(n1 * n2) / 2;
        const double sigmaU = std::sqrt(double(n1 * n2) * ((nn + 1) - tie / (nn * (nn - 1))) / 12);
        if (sigmaU == 0)
            return Error(ErrorKind::InvalidInput, "all samples are equal");
        double numer = u1 - muU;
        numer -= sign(numer) * 0.5; // continuity correction
        const double z = numer / sigmaU;
        p = 2 * std::min(normalCdf(z, 0, 1), 1 - normalCdf(z, 0, 1));
    }
    return MannWhitneyResult{usmall, p};
}

} // namespace strata
