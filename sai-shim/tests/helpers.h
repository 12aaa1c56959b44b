// Shared fixtures of the sai-shim tests: the vasic loaded in this process
// (its SAI tables and vasic_* extensions) and an RAII libalphad-sai handle.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <sai.h>
}
#include "alphad/alphad_sai.h"
#include "alphad/vasic.h"

namespace alphad_test {

inline std::string data(const std::string &name) { return std::string(ALPHAD_TEST_DATA) + "/" + name; }

/** The libsai-vasic of this process, opened a second time (same object). */
struct Vasic {
    void *lib = nullptr;
    decltype(&sai_api_initialize) initialize = nullptr;
    decltype(&sai_api_query) query = nullptr;
    decltype(&sai_api_uninitialize) uninitialize = nullptr;
    decltype(&sai_object_type_query) object_type = nullptr;
    decltype(&sai_switch_id_query) switch_id = nullptr;
    decltype(&vasic_advance) advance = nullptr;
    decltype(&vasic_now_ns) now_ns = nullptr;
    decltype(&vasic_last_error) last_error = nullptr;
    decltype(&vasic_totals) totals_fn = nullptr;
    decltype(&vasic_inject_fault) inject_fault = nullptr;
    decltype(&vasic_profile_count) profile_count = nullptr;
    sai_switch_api_t *sw = nullptr;
    sai_port_api_t *port = nullptr;
    sai_queue_api_t *queue = nullptr;
    sai_buffer_api_t *buf = nullptr;

    Vasic() {
        lib = dlopen(ALPHAD_TEST_VASIC, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return;
        initialize = reinterpret_cast<decltype(initialize)>(dlsym(lib, "sai_api_initialize"));
        query = reinterpret_cast<decltype(query)>(dlsym(lib, "sai_api_query"));
        uninitialize = reinterpret_cast<decltype(uninitialize)>(dlsym(lib, "sai_api_uninitialize"));
        object_type = reinterpret_cast<decltype(object_type)>(dlsym(lib, "sai_object_type_query"));
        switch_id = reinterpret_cast<decltype(switch_id)>(dlsym(lib, "sai_switch_id_query"));
        advance = reinterpret_cast<decltype(advance)>(dlsym(lib, "vasic_advance"));
        now_ns = reinterpret_cast<decltype(now_ns)>(dlsym(lib, "vasic_now_ns"));
        last_error = reinterpret_cast<decltype(last_error)>(dlsym(lib, "vasic_last_error"));
        totals_fn = reinterpret_cast<decltype(totals_fn)>(dlsym(lib, "vasic_totals"));
        inject_fault = reinterpret_cast<decltype(inject_fault)>(dlsym(lib, "vasic_inject_fault"));
        profile_count = reinterpret_cast<decltype(profile_count)>(dlsym(lib, "vasic_profile_count"));
    }
    ~Vasic() {
        if (lib)
            dlclose(lib);
    }
    Vasic(const Vasic &) = delete;
    Vasic &operator=(const Vasic &) = delete;

    /** Fetch the method tables (after sai_api_initialize). */
    bool tables() {
        void *t;
        if (query(SAI_API_SWITCH, &t) != SAI_STATUS_SUCCESS)
            return false;
        sw = static_cast<sai_switch_api_t *>(t);
        if (query(SAI_API_PORT, &t) != SAI_STATUS_SUCCESS)
            return false;
        port = static_cast<sai_port_api_t *>(t);
        if (query(SAI_API_QUEUE, &t) != SAI_STATUS_SUCCESS)
            return false;
        queue = static_cast<sai_queue_api_t *>(t);
        if (query(SAI_API_BUFFER, &t) != SAI_STATUS_SUCCESS)
            return false;
        buf = static_cast<sai_buffer_api_t *>(t);
        return true;
    }

    struct vasic_totals totals() {
        struct vasic_totals t{};
        EXPECT_EQ(totals_fn(&t), 0);
        return t;
    }

    sai_object_id_t queue_profile(sai_object_id_t q) {
        sai_attribute_t a{};
        a.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
        EXPECT_EQ(queue->get_queue_attribute(q, 1, &a), SAI_STATUS_SUCCESS);
        return a.value.oid;
    }

    int profile_th(sai_object_id_t p) {
        sai_attribute_t a{};
        a.id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
        EXPECT_EQ(buf->get_buffer_profile_attribute(p, 1, &a), SAI_STATUS_SUCCESS);
        return a.value.s8;
    }
};

using Profile = std::vector<std::pair<std::string, std::string>>;

/** An open libalphad-sai handle (closed at scope exit). */
struct Shim {
    alphad_sai_t *h = nullptr;
    alphad_status_t rc = ALPHAD_E_STATE;
    std::string err;
    uint32_t n_ports = 0, n_queues = 0;
    std::vector<alphad_queue_info_t> info;

    explicit Shim(const Profile &profile, const char *lib = ALPHAD_TEST_VASIC) {
        std::vector<alphad_kv_t> kv;
        for (const auto &p : profile)
            kv.push_back({p.first.c_str(), p.second.c_str()});
        char buf[1024] = "";
        rc = alphad_sai_open(lib, kv.data(), kv.size(), &h, buf, sizeof(buf));
        err = buf;
        if (rc == ALPHAD_OK) {
            EXPECT_EQ(alphad_sai_counts(h, &n_ports, &n_queues), ALPHAD_OK);
            info.resize(n_queues);
            EXPECT_EQ(alphad_sai_queues(h, info.data(), n_queues), ALPHAD_OK);
        }
    }
    ~Shim() { alphad_sai_close(h); }
    Shim(const Shim &) = delete;
    Shim &operator=(const Shim &) = delete;

    /** Open the vasic with a manual clock and inline scenario text. */
    static Profile manual(const std::string &scenario) {
        return {{"VASIC_CLOCK", "manual"}, {"VASIC_SCENARIO_TEXT", scenario}};
    }

    std::string error() const { return alphad_sai_last_error(h); }

    void advance_ms(double ms) {
        ASSERT_EQ(alphad_sai_advance(h, static_cast<uint64_t>(ms * 1e6)), ALPHAD_OK) << error();
    }

    struct Stats {
        std::vector<alphad_queue_stats_t> q;
        alphad_pool_stats_t pool{};
        uint64_t t_ns = 0;
    };
    Stats stats() {
        Stats s;
        s.q.resize(n_queues);
        EXPECT_EQ(alphad_sai_read_stats(h, s.q.data(), n_queues, &s.pool, &s.t_ns), ALPHAD_OK) << error();
        return s;
    }

    /** Queue table index of (port, queue index). */
    uint32_t index(uint32_t port, uint32_t queue) const {
        for (uint32_t i = 0; i < n_queues; i++)
            if (info[i].port_index == port && info[i].queue_index == queue)
                return i;
        ADD_FAILURE() << "no queue " << port << ":" << queue;
        return 0;
    }

    int8_t log2_alpha(uint32_t q) const {
        int8_t k = 0;
        EXPECT_EQ(alphad_sai_get_log2_alpha(h, q, &k), ALPHAD_OK);
        return k;
    }
};

/** DT fixed point for n saturated queues with alpha_i: len_i = alpha_i * B / (1 + sum alpha). */
inline std::vector<double> dt_steady_state(double B, const std::vector<double> &alpha) {
    double sum = 0;
    for (double a : alpha)
        sum += a;
    std::vector<double> len;
    for (double a : alpha)
        len.push_back(a * B / (1.0 + sum));
    return len;
}

}  // namespace alphad_test
