/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_SHARED_BUFFER_HELPER_H
#define ALPHAD_SHARED_BUFFER_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/object-factory.h"
#include "ns3/queue-disc-container.h"
#include "ns3/shared-buffer-queue-disc.h"
#include "ns3/shared-buffer.h"

#include <string>
#include <utility>

namespace ns3
{

/**
 * @ingroup alphad
 * Turns the devices of a node into the ports of one shared-memory switch:
 * creates the switch's SharedBuffer with its admission scheme, registers
 * every device as a port and installs a SharedBufferQueueDisc on each
 * (replacing any root queue disc).
 *
 * @code
 *   SharedBufferHelper sbh;
 *   sbh.SetScheme("ns3::AbmBufferScheme", "AlphaUnsched", DoubleValue(64));
 *   Ptr<SharedBuffer> b = sbh.Install(devices, poolBytes);
 * @endcode
 */
class SharedBufferHelper
{
  public:
    SharedBufferHelper();

    /**
     * Admission scheme of the buffers created by Install() (default: ns3::DtBufferScheme).
     * @param type a BufferScheme TypeId name, e.g. "ns3::AbmBufferScheme"
     * @param args attribute name and value pairs of the scheme
     */
    template <typename... Args> void SetScheme(const std::string& type, Args&&... args);
    /// Set an attribute of the scheme (aborts when the scheme has no such attribute).
    void SetSchemeAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of the scheme when the scheme has it; @return whether it has.
    bool SetSchemeAttributeFailSafe(const std::string& name, const AttributeValue& value);

    /// Set an attribute of the SharedBuffer created by Install().
    void SetBufferAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every SharedBufferQueueDisc created by Install().
    void SetQueueDiscAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @param ports the switch's devices, in port order (point-to-point devices)
     * @param poolBytes B of the switch
     * @param[out] discs the queue discs, in port order
     * @return the switch's SharedBuffer
     */
    Ptr<SharedBuffer> Install(const NetDeviceContainer& ports, uint64_t poolBytes,
                              QueueDiscContainer* discs = nullptr) const;

  private:
    ObjectFactory m_scheme;
    ObjectFactory m_buffer;
    ObjectFactory m_disc;
};

template <typename... Args>
void
SharedBufferHelper::SetScheme(const std::string& type, Args&&... args)
{
    m_scheme = ObjectFactory(type);
    m_scheme.Set(std::forward<Args>(args)...);
}

} // namespace ns3

#endif /* ALPHAD_SHARED_BUFFER_HELPER_H */
