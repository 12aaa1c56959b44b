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

namespace ns3
{

/**
 * @ingroup alphad
 * Turns the devices of a node into the ports of one shared-memory switch:
 * creates the switch's SharedBuffer, registers every device as a port and
 * installs a SharedBufferQueueDisc on each (replacing any root queue disc).
 */
class SharedBufferHelper
{
  public:
    SharedBufferHelper();

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
    ObjectFactory m_buffer;
    ObjectFactory m_disc;
};

} // namespace ns3

#endif /* ALPHAD_SHARED_BUFFER_HELPER_H */
