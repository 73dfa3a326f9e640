import nodemailer from "nodemailer";

const transporter = nodemailer.createTransport({ host: "smtp.example.com", port: 587 });

export async function sendEmail(to: string, subject: string, body: string): Promise<void> {
  await transporter.sendMail({ from: "support@example.com", to, subject, text: body });
}
