/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_BUFFER_SCHEME_H
#define ALPHAD_BUFFER_SCHEME_H

#include "ns3/object.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>

namespace ns3
{

class SharedBuffer;

/**
 * @ingroup alphad
 * What a scheme sees of one queue when it computes the queue's threshold.
 */
struct SchemeInput
{
    uint32_t port;        //!< port index within the switch
    uint32_t queue;       //!< queue index within the port (= priority)
    uint32_t globalQueue; //!< port * QueuesPerPort + queue
    bool unsched;         //!< first-RTT packet (host mark)
    double freeBytes;     //!< B - Q, unused buffer
    uint32_t portActive;  //!< non-empty queues at the port, this queue counted
};

/**
 * @ingroup alphad
 * A threshold and the factors it was made of (for the Admission trace).
 */
struct SchemeThreshold
{
    double bytes;      //!< T the queue length is compared with
    double alphaP;     //!< alpha of the packet's priority (DT, external: the queue's alpha)
    double nP{0.0};    //!< n_p (ABM) or N_p (FB); 0 when the scheme has none
    double gamma{1.0}; //!< normalised drain rate; 1 when the scheme has none
};

/**
 * @ingroup alphad
 * An admission scheme of a SharedBuffer: gives every queue its threshold T
 * (the buffer adds the rule Q + size <= B and does the accounting). As a
 * QueueDisc subclass implements DoEnqueue/DoDequeue, a scheme implements
 * GetThreshold and, when it keeps state, the Notify* hooks.
 *
 * Schemes are selected by TypeId; the short name used on command lines
 * ("abm-core") maps to the TypeId "ns3::AbmCoreBufferScheme" (LookupByShortName).
 */
class BufferScheme : public Object
{
  public:
    static TypeId GetTypeId();
    BufferScheme();
    ~BufferScheme() override;

    /**
     * TypeId of a scheme from its short name: lower-case words joined by '-',
     * each capitalised, + "BufferScheme" ("abm-core": ns3::AbmCoreBufferScheme).
     * @param name short name
     * @param[out] tid the scheme's TypeId
     * @return false when no BufferScheme of that name is registered
     */
    static bool LookupByShortName(const std::string& name, TypeId* tid);

    /// Bind to the buffer that owns the scheme; called once, when the buffer is configured.
    void Attach(SharedBuffer* buffer);

    /// Threshold of a queue for the packet described by @p in.
    virtual SchemeThreshold GetThreshold(const SchemeInput& in) const = 0;

    /// A port (and its QueuesPerPort queues) was added to the buffer.
    virtual void NotifyPortAdded(uint32_t port);
    /// A packet was admitted into a queue (after the buffer's accounting).
    virtual void NotifyEnqueue(uint32_t port, uint32_t queue, uint32_t bytes);
    /// A packet of a queue was handed to the port (after the buffer's accounting).
    virtual void NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes);

    /// Alpha in effect on a queue, for telemetry (default: the queue's alpha).
    virtual double GetAlpha(uint32_t globalQueue) const;

  protected:
    void DoDispose() override;
    /// Called by Attach(), once the buffer's QueuesPerPort and alphas are known.
    virtual void DoAttach();

    SharedBuffer* m_buffer; //!< the owning buffer (not a reference: it owns this scheme)
};

} // namespace ns3

#endif /* ALPHAD_BUFFER_SCHEME_H */
