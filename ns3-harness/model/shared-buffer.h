/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * One shared buffer pool per switch, divided among the egress queues of all
 * the switch's ports by an admission scheme (buffer-scheme.h).
 */

#ifndef ALPHAD_SHARED_BUFFER_H
#define ALPHAD_SHARED_BUFFER_H

#include "buffer-scheme.h"

#include "ns3/data-rate.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * What the admission check saw for one packet; fired by the "Admission"
 * trace source of SharedBuffer (the per-packet CSV for the P4 reference is
 * written from it).
 */
struct AdmissionRecord
{
    uint32_t port;          //!< port index within the switch
    uint32_t queue;         //!< queue index within the port (= priority)
    uint32_t bytes;         //!< packet size
    uint64_t qlenBytes;     //!< queue length before the packet
    uint64_t poolOccupancy; //!< Q, bytes held by all queues of the switch
    uint64_t poolBytes;     //!< B
    double nP;              //!< n_p (ABM) or N_p (FB) used; 0 when the scheme has none
    uint32_t portActive;    //!< non-empty queues at the port (packet's queue counted)
    double gamma;           //!< normalised drain rate used; 1 when the scheme has none
    double
        alphaP; //!< alpha of the packet's priority, not the first-RTT alpha (external: the queue's)
    bool unsched;          //!< first-RTT packet (host mark)
    bool admitted;         //!< decision
    double thresholdBytes; //!< T the queue length was compared with
};

/**
 * @ingroup alphad
 * A switch's shared buffer: pool of B bytes drawn by every egress queue of
 * every port, the per-queue counters a real switch exposes (tx/drop counters,
 * read-and-clear watermarks) and the admission scheme (a BufferScheme: dt,
 * cs, abm, abm-core, fb, protean, external), which gives each queue its
 * threshold T. Every scheme has the extra rule Q + size <= B.
 *
 * Queue q of every port belongs to priority q (ABM §2: each priority uses a
 * separate queue at each port).
 *
 * Scheme, QueuesPerPort and Alphas are read when the first port is added
 * (without a Scheme: DtBufferScheme).
 */
class SharedBuffer : public Object
{
  public:
    /// Counters and state of one egress queue, as a switch would keep them.
    struct QueueState
    {
        uint64_t len{0};         //!< bytes in the queue
        uint32_t packets{0};     //!< packets in the queue
        uint64_t watermark{0};   //!< peak len since the last ReadWatermarks()
        uint64_t txBytes{0};     //!< cumulative
        uint64_t txPackets{0};   //!< cumulative
        uint64_t dropBytes{0};   //!< cumulative
        uint64_t dropPackets{0}; //!< cumulative
        double alpha{0.5};       //!< the queue's alpha: alpha_p, or as set by SetAlpha
    };

    /// Signature of the "Admission" trace source.
    typedef void (*AdmissionCallback)(const AdmissionRecord& record);

    static TypeId GetTypeId();
    SharedBuffer();
    ~SharedBuffer() override;

    /// Drop reasons of the admission check.
    static constexpr const char* THRESHOLD_DROP = "Queue above its threshold";
    static constexpr const char* POOL_DROP = "Shared pool full";

    /// Set the admission scheme (before the first port is added).
    void SetScheme(Ptr<BufferScheme> scheme);
    /// The admission scheme.
    Ptr<BufferScheme> GetScheme() const;

    /**
     * Register a port; its QueuesPerPort queues are appended.
     * @param rate line rate of the port
     * @return the port index
     */
    uint32_t AddPort(DataRate rate);

    uint32_t GetNPorts() const;
    uint32_t GetQueuesPerPort() const;
    uint32_t GetNQueues() const;
    uint64_t GetPoolBytes() const;
    uint64_t GetOccupancy() const;
    DataRate GetPortRate(uint32_t port) const;
    const QueueState& GetQueue(uint32_t port, uint32_t queue) const;

    /**
     * Admission check of one packet; on admission the packet is accounted.
     * @param port port index
     * @param queue queue index within the port
     * @param bytes packet size
     * @param unsched true for a first-RTT packet (host mark)
     * @param[out] reason drop reason when not admitted
     * @return true if admitted
     */
    bool Admit(uint32_t port, uint32_t queue, uint32_t bytes, bool unsched, const char** reason);

    /// A packet of the queue was handed to the port.
    void Dequeued(uint32_t port, uint32_t queue, uint32_t bytes);

    /// Threshold T the queue has now, for a normal (or first-RTT) packet.
    double GetThreshold(uint32_t port, uint32_t queue, bool unsched) const;

    /// Set the alpha of one queue (external scheme: the co-simulated daemon).
    void SetAlpha(uint32_t globalQueue, double alpha);
    /// Alpha in effect on one queue, as the scheme applies it (for telemetry).
    double GetAlpha(uint32_t globalQueue) const;
    /// Configured alpha of a priority.
    double GetAlphaP(uint32_t priority) const;

    /// Peak queue lengths since the previous call; clears them (read-and-clear).
    std::vector<uint64_t> ReadWatermarks();
    /// Peak pool occupancy since the previous call; clears it.
    uint64_t ReadPoolWatermark();
    /// State of every queue, ordered port-major.
    const std::vector<QueueState>& GetQueues() const;

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    void Configure();
    double ThresholdOf(uint32_t port, uint32_t queue, bool unsched, AdmissionRecord* rec) const;

    // attributes
    uint64_t m_poolBytes;     //!< B
    uint32_t m_queuesPerPort; //!< queues (priorities) per port
    std::string m_alphas;     //!< alpha_p per priority, comma-separated
    Ptr<BufferScheme> m_scheme;

    // state
    bool m_configured;
    std::vector<double> m_alphaP; //!< per priority
    std::vector<DataRate> m_portRate;
    std::vector<QueueState> m_q;        //!< port-major
    std::vector<uint32_t> m_portActive; //!< non-empty queues per port
    uint64_t m_occupancy;               //!< Q
    uint64_t m_poolWatermark;           //!< peak Q since last read

    TracedCallback<const AdmissionRecord&> m_admissionTrace;
};

/// Parse "a,b,c" into doubles; aborts naming @p what on a bad list.
std::vector<double> ParseDoubleList(const std::string& text, const std::string& what);

} // namespace ns3

#endif /* ALPHAD_SHARED_BUFFER_H */
