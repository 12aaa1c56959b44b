/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "shared-buffer-helper.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/pointer.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

namespace ns3
{

SharedBufferHelper::SharedBufferHelper()
{
    m_scheme.SetTypeId("ns3::DtBufferScheme");
    m_buffer.SetTypeId("ns3::SharedBuffer");
    m_disc.SetTypeId("ns3::SharedBufferQueueDisc");
}

void
SharedBufferHelper::SetSchemeAttribute(const std::string& name, const AttributeValue& value)
{
    m_scheme.Set(name, value);
}

bool
SharedBufferHelper::SetSchemeAttributeFailSafe(const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (!m_scheme.GetTypeId().LookupAttributeByName(name, &info))
    {
        return false;
    }
    m_scheme.Set(name, value);
    return true;
}

void
SharedBufferHelper::SetBufferAttribute(const std::string& name, const AttributeValue& value)
{
    m_buffer.Set(name, value);
}

void
SharedBufferHelper::SetQueueDiscAttribute(const std::string& name, const AttributeValue& value)
{
    m_disc.Set(name, value);
}

Ptr<SharedBuffer>
SharedBufferHelper::Install(const NetDeviceContainer& ports, uint64_t poolBytes,
                            QueueDiscContainer* discs) const
{
    Ptr<SharedBuffer> buffer = m_buffer.Create<SharedBuffer>();
    buffer->SetAttribute("PoolBytes", UintegerValue(poolBytes));
    buffer->SetScheme(m_scheme.Create<BufferScheme>());
    for (uint32_t i = 0; i < ports.GetN(); ++i)
    {
        Ptr<NetDevice> dev = ports.Get(i);
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        uint32_t port = buffer->AddPort(rate.Get());
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        NS_ABORT_MSG_IF(!tc, "SharedBufferHelper: install the internet stack before the switch");
        if (tc->GetRootQueueDiscOnDevice(dev))
        {
            tc->DeleteRootQueueDiscOnDevice(dev);
        }
        ObjectFactory f = m_disc;
        f.Set("Buffer", PointerValue(buffer));
        f.Set("Port", UintegerValue(port));
        Ptr<SharedBufferQueueDisc> qd = f.Create<SharedBufferQueueDisc>();
        tc->SetRootQueueDiscOnDevice(dev, qd);
        if (discs)
        {
            discs->Add(qd);
        }
    }
    return buffer;
}

} // namespace ns3
